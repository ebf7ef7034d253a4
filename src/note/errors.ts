/**
 * The failures a Note's rules can answer with (docs/spec.md §4). Each carries a
 * `message` a model can act on, and the details it needs to retry correctly.
 * The MCP layer and the HTTP layer each map this union exhaustively.
 */
import type { ChangeEntry } from "./changes.js";

/** One problem with the arguments: where, and what is wrong. */
export interface Issue {
  path: string;
  problem: string;
}

/**
 * A field's path under its parent: `parent.name` for a name like an
 * identifier, `parent["Unit price"]` for any other (a Sheet's column names
 * hold spaces, dots and quotes); the edge and the Note spell paths alike.
 */
export function fieldPath(parent: string, name: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return parent === "" ? name : `${parent}.${name}`;
  return `${parent}[${JSON.stringify(name)}]`;
}

export type NoteError =
  | { code: "invalid_arguments"; message: string; issues: Issue[] }
  | { code: "note_not_found"; message: string; note_id: string }
  | { code: "note_not_approved"; message: string; note_id: string }
  | { code: "note_exists"; message: string; note_id: string }
  | {
      code: "version_conflict";
      message: string;
      expected_version: number;
      current_version: number;
      /** The changes after expected_version, oldest first, at most CONFLICT_CHANGES (changes.ts). */
      changes: ChangeEntry[];
      /** Whether `changes` is every change since: false when some were left out or pruned (list_note_changes pages them). */
      changes_complete: boolean;
    }
  | { code: "tab_not_found"; message: string; tab_id: string; hint: string }
  | { code: "wrong_tab_type"; message: string; tab_id: string; tab_type: string; expected: string[] }
  | { code: "slide_not_found"; message: string; tab_id: string; slide_id: string; hint: string }
  | { code: "row_not_found"; message: string; tab_id: string; row_id: string; hint: string }
  | { code: "idempotency_key_reused"; message: string; idempotency_key: string; first_used_by: string }
  | { code: "invalid_url"; message: string; url: string; reason: string }
  | { code: "limit_exceeded"; message: string; limit: string; max: number }
  /** A later change touched what the change to take back touched (undo.ts): those changes, as version_conflict lists its own. */
  | { code: "revert_conflict"; message: string; version: number; changes: ChangeEntry[]; changes_complete: boolean }
  | { code: "change_not_found"; message: string; version: number; oldest_version: number | null; current_version: number }
  | { code: "not_revertible"; message: string; version: number; operation: string; reason: string }
  /** fetch: no item of this id in the Note (deleted since the search, or never one). */
  | { code: "item_not_found"; message: string; id: string };

/** The issues an error lists at most, then a count of the rest. */
const MAX_ISSUES = 50;

export function invalidArguments(all: Issue[]): NoteError {
  // Every problem a model can fix in one go, but not one for each cell of 500 rows echoed back (megabytes, past what RPC carries).
  const issues = all.length <= MAX_ISSUES ? all : [...all.slice(0, MAX_ISSUES), { path: "(arguments)", problem: `and ${all.length - MAX_ISSUES} more problems` }];
  const list = issues.map((i) => `${i.path}: ${i.problem}`).join("; ");
  return { code: "invalid_arguments", message: `Invalid arguments. ${list}`, issues };
}

export function noteNotFound(noteId: string): NoteError {
  return {
    code: "note_not_found",
    message: `No Note "${noteId}" that you can use. Call list_notes for the Notes you can reach.`,
    note_id: noteId,
  };
}

export function limitExceeded(limit: string, max: number, what: string): NoteError {
  return { code: "limit_exceeded", message: `${what} (at most ${max}).`, limit, max };
}

export function wrongTabType(tab: { id: string; type: string }, expected: string[], message: string): NoteError {
  return { code: "wrong_tab_type", message, tab_id: tab.id, tab_type: tab.type, expected };
}
