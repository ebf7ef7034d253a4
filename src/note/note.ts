/**
 * The Note: runs one named operation of its rules (docs/spec.md §3, §5, §6, §7) in
 * one transaction of its store, and nothing else. It is the only place that
 * opens a transaction for an operation, and the store rolls back any failure
 * result as surely as a thrown error. The Durable Object, the unit tests and
 * the simulations all run this same code.
 */
import { mayRun } from "./pipeline/access.js";
import { ADD_FILE, listAttachments } from "./attachments/list.js";
import { listChanges } from "./changes.js";
import type { Caller, CommandName, Input, KeyedCommand, Output } from "./commands.js";
import type { NoteContext } from "./context.js";
import { invalidArguments } from "./errors.js";
import { keyedWrite, type KeyedWrite } from "./pipeline/keyed-write.js";
import { ADD_MEMBER, createNote, REMOVE_MEMBER, DELETE_NOTE, readNote, RENAME_NOTE, SET_APPROVAL, SET_MARKDOWN } from "./person.js";
import { personChange, type PersonChange } from "./pipeline/person-change.js";
import { fail, ok, type Result } from "./result.js";
import { SET_SLIDES } from "./tabs/slides.js";
import { ADD_SOURCE } from "./attachments/sources.js";
import type { NoteStore } from "./store.js";
import { ADD_TAB, CREATE_TAB, DELETE_TAB, listTabs, MOVE_TAB, readTab, RENAME_TAB } from "./tabs/commands.js";
import { CHANGE_TAB, EDIT_TAB } from "./tabs/edit.js";
import { readChange, REVERT_CHANGE, UNDO_CHANGE } from "./undo.js";
import { openNote } from "./pipeline/access.js";
import { Checks, fields } from "./validate.js";
import { IndexedStore } from "./search/indexed-store.js";
import { describeHits, fetchItem, searchNote } from "./search/search.js";

interface NoteOptions {
  /** Milliseconds since the epoch; tab IDs and timestamps read it. */
  now: () => number;
}

/** Each operation's rules take the Note, the caller and the arguments as given: they check every field themselves. */
type Handler<K extends CommandName> = (ctx: NoteContext, caller: Caller, input: unknown) => Result<Output<K>>;

/**
 * Each operation: a read or `create_note` is a function of its own; an agent's
 * write is its rules run by the keyed-write pipeline, a person's change its
 * rules run by the person's pipeline.
 */
/** The two write pipelines as handlers: an agent's keyed write, a person's change. */
const person =
  <I>(change: PersonChange<I>) =>
  (ctx: NoteContext, caller: Caller, input: unknown) =>
    personChange(change, ctx, caller, input);
const keyed =
  <K extends KeyedCommand, I extends { expected_version: number; idempotency_key: string }, P>(write: KeyedWrite<K, I, P>) =>
  (ctx: NoteContext, caller: Caller, input: unknown) =>
    keyedWrite(write, ctx, caller, input);

const HANDLERS: { readonly [K in CommandName]: Handler<K> } = {
  // The agent's tools.
  list_tabs: listTabs,
  read_tab: readTab,
  create_tab: keyed(CREATE_TAB),
  edit_tab: keyed(EDIT_TAB),
  add_source: keyed(ADD_SOURCE),
  list_attachments: listAttachments,
  list_changes: listChanges,
  revert_change: keyed(REVERT_CHANGE),
  search: searchNote,
  describe_hits: describeHits,
  fetch_item: fetchItem,
  // The person's app.
  create_note: createNote,
  read_note: readNote,
  set_approval: person(SET_APPROVAL),
  add_member: person(ADD_MEMBER),
  remove_member: person(REMOVE_MEMBER),
  rename_note: person(RENAME_NOTE),
  delete_note: person(DELETE_NOTE),
  add_tab: person(ADD_TAB),
  rename_tab: person(RENAME_TAB),
  move_tab: person(MOVE_TAB),
  delete_tab: person(DELETE_TAB),
  set_slides: person(SET_SLIDES),
  change_tab: person(CHANGE_TAB),
  set_markdown: person(SET_MARKDOWN),
  add_file: person(ADD_FILE),
  undo_change: person(UNDO_CHANGE),
  read_change: (ctx, caller, input) => {
    const given = fields(input);
    if (!given.ok) return given;
    const checks = new Checks();
    checks.onlyFields(given.value, ["version"]);
    checks.integer("version", given.value.version, 1, Number.MAX_SAFE_INTEGER, true);
    const invalid = checks.failure();
    if (invalid !== null) return invalid;
    const opened = openNote(ctx, caller);
    if (!opened.ok) return opened;
    return readChange(ctx, opened.value, given.value.version as number);
  },
};

export class Note {
  readonly #ctx: NoteContext;

  constructor(
    readonly id: string,
    store: NoteStore,
    options: NoteOptions,
  ) {
    // Every content write through the rules keeps the Note's search index current, in its own transaction.
    this.#ctx = { id, store: store instanceof IndexedStore ? store : new IndexedStore(store), now: options.now };
  }

  /**
   * Runs one operation in one transaction. A failure of any check returns
   * its error and leaves the Note exactly as it was.
   */
  execute<K extends CommandName>(caller: Caller, name: K, input: Input<K>): Result<Output<K>> {
    if (!Object.hasOwn(HANDLERS, name)) {
      return fail(invalidArguments([{ path: "operation", problem: `unknown operation "${String(name)}"` }]));
    }
    const allowed = mayRun(caller, name);
    if (!allowed.ok) return allowed;
    const handler = HANDLERS[name] as Handler<K>;
    return this.#ctx.store.transaction(() => handler(this.#ctx, caller, input));
  }

  /** Drops idempotency records older than the retention window; returns how many, and the oldest kept. */
  pruneIdempotency(retentionMs: number): { pruned: number; oldest: number | null } {
    const { store } = this.#ctx;
    const result = store.transaction(() => {
      const pruned = store.pruneIdempotency(this.#ctx.now() - retentionMs);
      // The touch index's keys older than the log: they can block no revert (undo.ts).
      const oldestChange = store.oldestChange();
      if (oldestChange !== null) store.pruneTouches(oldestChange);
      return ok({ pruned, oldest: store.oldestIdempotency() });
    });
    if (!result.ok) throw new Error(`pruning failed: ${result.error.message}`);
    return result.value;
  }
}
