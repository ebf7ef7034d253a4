/**
 * The version proves freshness (SPEC §1, promise 3): every committed change,
 * by agent or person, bumps it by one, and a write that read an older version
 * is refused. It never proves the target: the tab ID does that.
 */
import { fail, type Result } from "./result.js";
import type { NoteMeta, NoteStore } from "./store.js";

/** The one version check: a `version_conflict` naming both numbers, or null when the caller is current. */
export function checkVersion(expected: number, current: number): Result<never> | null {
  if (expected === current) return null;
  const what =
    expected < current
      ? `The Note changed: expected version ${expected}, current version ${current}.`
      : `Expected version ${expected} is ahead of the Note's current version ${current}: no Note has been there yet.`;
  return fail({
    code: "version_conflict",
    message: `${what} Re-read it (list_note_tabs), check that your target is still the one you mean, and retry with the current version.`,
    expected_version: expected,
    current_version: current,
  });
}

/** The version the Note's next committed change gets: one more, always. */
export function nextVersion(meta: NoteMeta): number {
  return meta.version + 1;
}

/** Writes the Note's meta with its version bumped by one; returns the new version. */
export function commitVersion(store: NoteStore, meta: NoteMeta): number {
  const version = nextVersion(meta);
  store.writeMeta({ ...meta, version });
  return version;
}
