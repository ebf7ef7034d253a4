/**
 * The Note: runs one named operation of its rules (SPEC §3, §5, §6, §7) in
 * one transaction of its store, and nothing else. It is the only place that
 * opens a transaction for an operation, and the store rolls back any failure
 * result as surely as a thrown error. The Durable Object, the unit tests and
 * the simulations all run this same code.
 */
import { mayRun } from "./access.js";
import { ADD_FILE, listAttachments } from "./attachments.js";
import { listChanges } from "./changes.js";
import type { Caller, CommandName, Input, Output } from "./commands.js";
import type { Counterfactual, NoteContext } from "./context.js";
import { invalidArguments } from "./errors.js";
import { keyedWrite } from "./keyed-write.js";
import { ADD_MEMBER, createNote, REMOVE_MEMBER, DELETE_NOTE, readNote, RENAME_NOTE, SET_APPROVAL, SET_MARKDOWN } from "./person.js";
import { personChange } from "./person-change.js";
import { fail, ok, type Result } from "./result.js";
import { SET_SLIDES } from "./slides.js";
import { ADD_SOURCE } from "./sources.js";
import type { NoteMeta, NoteStore } from "./store.js";
import { ADD_TAB, CREATE_TAB, DELETE_TAB, listTabs, MOVE_TAB, readTab, RENAME_TAB } from "./tab-commands.js";
import { CHANGE_TAB, EDIT_TAB } from "./tab-edit.js";

export type { Counterfactual } from "./context.js";

export interface NoteOptions {
  /** Milliseconds since the epoch; tab IDs and timestamps read it. */
  now: () => number;
  counterfactual?: Counterfactual;
}

/** Each operation's rules take the Note, the caller and the arguments as given: they check every field themselves. */
type Handler<K extends CommandName> = (ctx: NoteContext, caller: Caller, input: unknown) => Result<Output<K>>;

/**
 * Each operation: a read or `create_note` is a function of its own; an agent's
 * write is its rules run by the keyed-write pipeline, a person's change its
 * rules run by the person's pipeline.
 */
const HANDLERS: { readonly [K in CommandName]: Handler<K> } = {
  // The agent's tools.
  list_tabs: listTabs,
  read_tab: readTab,
  create_tab: (ctx, caller, input) => keyedWrite(CREATE_TAB, ctx, caller, input),
  edit_tab: (ctx, caller, input) => keyedWrite(EDIT_TAB, ctx, caller, input),
  add_source: (ctx, caller, input) => keyedWrite(ADD_SOURCE, ctx, caller, input),
  list_attachments: listAttachments,
  list_changes: listChanges,
  // The person's app.
  create_note: createNote,
  read_note: readNote,
  set_approval: (ctx, caller, input) => personChange(SET_APPROVAL, ctx, caller, input),
  add_member: (ctx, caller, input) => personChange(ADD_MEMBER, ctx, caller, input),
  remove_member: (ctx, caller, input) => personChange(REMOVE_MEMBER, ctx, caller, input),
  rename_note: (ctx, caller, input) => personChange(RENAME_NOTE, ctx, caller, input),
  delete_note: (ctx, caller, input) => personChange(DELETE_NOTE, ctx, caller, input),
  add_tab: (ctx, caller, input) => personChange(ADD_TAB, ctx, caller, input),
  rename_tab: (ctx, caller, input) => personChange(RENAME_TAB, ctx, caller, input),
  move_tab: (ctx, caller, input) => personChange(MOVE_TAB, ctx, caller, input),
  delete_tab: (ctx, caller, input) => personChange(DELETE_TAB, ctx, caller, input),
  set_slides: (ctx, caller, input) => personChange(SET_SLIDES, ctx, caller, input),
  change_tab: (ctx, caller, input) => personChange(CHANGE_TAB, ctx, caller, input),
  set_markdown: (ctx, caller, input) => personChange(SET_MARKDOWN, ctx, caller, input),
  add_file: (ctx, caller, input) => personChange(ADD_FILE, ctx, caller, input),
};

export class Note {
  readonly #ctx: NoteContext;

  constructor(
    readonly id: string,
    store: NoteStore,
    options: NoteOptions,
  ) {
    this.#ctx = { id, store, now: options.now, counterfactual: options.counterfactual ?? {} };
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
      return ok({ pruned, oldest: store.oldestIdempotency() });
    });
    if (!result.ok) throw new Error(`pruning failed: ${result.error.message}`);
    return result.value;
  }

  /** The Note's current meta, or null before it was created. */
  meta(): NoteMeta | null {
    return this.#ctx.store.readMeta();
  }
}
