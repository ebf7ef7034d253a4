/** Expected failures of the Note's rules are values, never exceptions. */
import type { NoteError } from "./errors.js";

export type Result<T, E = NoteError> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(error: NoteError): { ok: false; error: NoteError } {
  return { ok: false, error };
}
