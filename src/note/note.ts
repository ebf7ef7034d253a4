/**
 * The Note: runs one named operation of its rules (SPEC §3, §5, §6, §7) in
 * one transaction of its store, and nothing else. It is the only place that
 * opens a transaction for an operation, and the store rolls back any failure
 * result as surely as a thrown error. The Durable Object, the unit tests and
 * the simulations all run this same code.
 */
import { mayRun } from "./access.js";
import { addFile, listAttachments } from "./attachments.js";
import type { Caller, CommandName, Input, Output } from "./commands.js";
import type { Counterfactual, NoteContext } from "./context.js";
import { invalidArguments } from "./errors.js";
import { addMember, createNote, readNote, setApproval, setMarkdown } from "./person.js";
import { fail, ok, type Result } from "./result.js";
import { editTab, setSlides } from "./slides.js";
import { addSource } from "./sources.js";
import type { NoteMeta, NoteStore } from "./store.js";
import { addTab, createTab, deleteTab, listTabs, moveTab, readTab, renameTab } from "./tab-commands.js";

export type { Counterfactual } from "./context.js";

export interface NoteOptions {
  /** Milliseconds since the epoch; tab IDs and timestamps read it. */
  now: () => number;
  counterfactual?: Counterfactual;
}

/** Each operation's rules take the Note, the caller and the arguments as given: they check every field themselves. */
type Handler<K extends CommandName> = (ctx: NoteContext, caller: Caller, input: unknown) => Result<Output<K>>;

const HANDLERS: { readonly [K in CommandName]: Handler<K> } = {
  // The agent's tools.
  list_tabs: listTabs,
  read_tab: readTab,
  create_tab: createTab,
  edit_tab: editTab,
  add_source: addSource,
  list_attachments: listAttachments,
  // The person's app.
  create_note: createNote,
  read_note: readNote,
  set_approval: setApproval,
  add_member: addMember,
  add_tab: addTab,
  rename_tab: renameTab,
  move_tab: moveTab,
  delete_tab: deleteTab,
  set_slides: setSlides,
  set_markdown: setMarkdown,
  add_file: addFile,
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
