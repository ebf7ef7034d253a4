/**
 * The pipeline of every change the person makes in the app (docs/spec.md §7): the
 * arguments, access, the version when the app sends one, the change, and one
 * version bump. A change that changes nothing commits nothing.
 */
import { openNote } from "./access.js";
import { labelOf, operationOf, touchedBy, type Names, type Touched } from "../changes.js";
import type { Caller, Changed, CommandName } from "../commands.js";
import type { NoteContext } from "../context.js";
import { tellMembers } from "../directory.js";
import { ok, type Result } from "../result.js";
import type { NoteMeta } from "../store.js";
import type { Reverting, UndoStep } from "../undo.js";
import { Checks, fields } from "../validate.js";
import { checkVersion, commitVersion } from "./version.js";

/** What a change did: nothing, or the Note's new meta (when it changed) and what the answer reports. */
/** `touched`, `names`, `undo` and `reverts` go to the change log only, not into the answer. */
type PersonApplied = "unchanged" | ({ meta?: NoteMeta; touched?: Touched; names?: Names; undo?: UndoStep[]; reverts?: Reverting } & Omit<Partial<Changed>, "note_id" | "version">);

/** A person's change: module-level data, one per operation, that the pipeline runs in its order. */
export interface PersonChange<I> {
  /** The operation's name: what the change log calls it (change_tab logs its edit's own). */
  readonly name: CommandName;
  /** The change's own fields; any other but `expected_version` is refused. */
  readonly fields: readonly string[];
  /** Checks of the change's own fields (the pipeline checks `expected_version`). */
  validate: (input: Readonly<Record<string, unknown>>, checks: Checks) => void;
  /** The change itself, over the meta read at the start; runs only when every check passed. */
  apply: (ctx: NoteContext, meta: NoteMeta, input: I) => Result<PersonApplied>;
  /** Whether the members' directories show what this changes (approval, membership). */
  readonly tellsMembers?: boolean;
}

export function personChange<I>(change: PersonChange<I>, ctx: NoteContext, caller: Caller, input: unknown): Result<Changed> {
  const given = fields(input);
  if (!given.ok) return given;
  const checks = new Checks();
  checks.onlyFields(given.value, ["expected_version", ...change.fields]);
  checks.integer("expected_version", given.value.expected_version, 1, Number.MAX_SAFE_INTEGER);
  change.validate(given.value, checks);
  const invalid = checks.failure();
  if (invalid !== null) return invalid;

  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  const expected = given.value.expected_version;
  if (typeof expected === "number") {
    const conflict = checkVersion(ctx, expected, meta.version);
    if (conflict !== null) return conflict;
  }

  const applied = change.apply(ctx, meta, given.value as I);
  if (!applied.ok) return applied;
  if (applied.value === "unchanged") return ok({ note_id: ctx.id, version: meta.version });
  const { meta: changed = meta, touched, names, undo, reverts, ...details } = applied.value;
  const version = commitVersion(ctx, changed, {
    caller,
    operation: operationOf(change.name, given.value),
    touched: { ...touchedBy(details), ...touched },
    names: { ...labelOf(details), ...names },
    undo,
    reverts,
  });
  if (change.tellsMembers === true) tellMembers(ctx.store, { ...changed, version });
  return ok({ note_id: ctx.id, version, ...details });
}
