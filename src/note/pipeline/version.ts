/**
 * The version proves freshness (docs/spec.md §1, promise 3): every committed change,
 * by agent or person, bumps it by one, and a write that read an older version
 * is refused. It never proves the target: the tab ID does that.
 */
import { changesSince, logChange, type Names, type Touched } from "../changes.js";
import type { Reverting, UndoStep } from "../undo.js";
import type { Caller } from "../commands.js";
import type { NoteContext } from "../context.js";
import { fail, type Result } from "../result.js";
import type { NoteMeta } from "../store.js";

/**
 * The one version check: a `version_conflict` naming both numbers and the
 * changes since the caller's version (so an agent can tell whether any
 * touched its target without a second call), or null when the caller is current.
 */
export function checkVersion(ctx: NoteContext, expected: number, current: number): Result<never> | null {
  if (expected === current) return null;
  const code = "version_conflict";
  if (expected > current) {
    const message = `Expected version ${expected} is ahead of the Note's current version ${current}: no Note has been there yet. Re-read it (list_note_tabs) and retry with the current version.`;
    return fail({ code, expected_version: expected, current_version: current, message, changes: [], changes_complete: true });
  }
  const since = changesSince(ctx, expected, current);
  const what = `The Note changed: expected version ${expected}, current version ${current}.`;
  // Only a complete list lets an agent judge that nothing touched its target; a partial one must not read as if it did.
  const message = since.changes_complete
    ? `${what} \`changes\` lists every change since your version: if none touched your target, retry with the current version; otherwise re-read it (list_note_tabs, read_note_tab) first.`
    : `${what} \`changes\` lists only the first ${since.changes.length} of ${current - expected} changes since your version (changes_complete: false): re-read it (list_note_tabs, read_note_tab) before you retry.`;
  return fail({ code, expected_version: expected, current_version: current, message, changes: since.changes, changes_complete: since.changes_complete });
}

/** The version the Note's next committed change gets: one more, always. */
export function nextVersion(meta: NoteMeta): number {
  return meta.version + 1;
}

/** What a committed change tells the log: who, the operation, and what it touched. */
interface Commit {
  caller: Caller;
  operation: string;
  touched: Touched;
  /** The names the entry keeps, as they are at this version (changes.ts). */
  names?: Names;
  /** A content change's steps, what takes it back (undo.ts); a revert's, and the version it took back. */
  undo?: UndoStep[] | undefined;
  reverts?: Reverting | undefined;
}

/**
 * Writes the Note's meta with its version bumped by one, and the change's
 * entry in the log: the one place either happens. Returns the new version.
 */
export function commitVersion(ctx: NoteContext, meta: NoteMeta, commit: Commit): number {
  const version = nextVersion(meta);
  ctx.store.writeMeta({ ...meta, version });
  logChange(ctx, commit.caller, version, commit.operation, commit.touched, commit.names, commit.undo === undefined ? undefined : { steps: commit.undo, reverts: commit.reverts });
  return version;
}
