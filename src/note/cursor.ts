/**
 * Opaque paging cursors, for a Note's attachments, a user's list of Notes
 * and a search across them. A cursor names a position in one list and carries a checksum, so a
 * cursor that was edited, truncated or taken from another Note, user or list
 * is refused instead of silently paging from somewhere else. It is an
 * integrity check, not a secret: the position it hides is the caller's own data.
 */
export type AttachmentKind = "sources" | "files";

export function encodeCursor(noteId: string, kind: AttachmentKind, after: number): string {
  return seal(noteId, `${kind}.${after}`);
}

/** The position after which the next page starts, or null for a cursor this Note did not issue. */
export function decodeCursor(noteId: string, kind: AttachmentKind, cursor: string): number | null {
  const match = /^(sources|files)\.(\d{1,15})$/.exec(open(noteId, cursor, 64) ?? "");
  return match === null || match[1] !== kind ? null : Number(match[2]);
}

/**
 * A cursor into a user's list of Notes: the last Note ID of the page (the list
 * is ordered by Note ID, so a Note added or removed between two pages neither
 * repeats nor hides another). Bound to the user, not to a title filter: the
 * position means the same under any filter.
 */
export function encodeNotesCursor(user: string, afterNoteId: string): string {
  return seal(user, `notes.${afterNoteId}`);
}

/** The Note ID after which the next page starts, or null for a cursor not issued to this user. */
export function decodeNotesCursor(user: string, cursor: string): string | null {
  // Note IDs are 1 to 64 letters, digits, '-' or '_' (NOTE_ID_PATTERN, src/edge/fields.ts): never a '.'.
  const match = /^notes\.([A-Za-z0-9_-]{1,64})$/.exec(open(user, cursor, 160) ?? "");
  return match === null ? null : (match[1] as string);
}

/**
 * A cursor into a deck's slides or a Sheet's rows, bound to the Note and the
 * tab: the last item the page showed (its ID and its order key then), and
 * how many items came before the next page (its first index). A slide or row
 * added or deleted between two pages neither repeats nor hides another
 * (readTab's `resume`); one the person moves between them may.
 */
export interface ItemsCursor {
  after: number;
  count: number;
  lastId: string;
}

export function encodeItemsCursor(noteId: string, tabId: string, kind: "slides" | "rows", cursor: ItemsCursor): string {
  return seal(`${noteId}/${tabId}`, `${kind}.${cursor.after}.${cursor.count}.${cursor.lastId}`);
}

/** Where the next page of this tab starts, or null for a cursor not issued for this Note's tab and kind of items. */
export function decodeItemsCursor(noteId: string, tabId: string, kind: "slides" | "rows", cursor: string): ItemsCursor | null {
  // Slide and row IDs are `slide-{n}-{base36}` and `row-{n}-{base36}` (tab-id.ts).
  const match = /^(slides|rows)\.(-?\d{1,16})\.(\d{1,6})\.([a-z0-9-]{1,100})$/.exec(open(`${noteId}/${tabId}`, cursor, ITEMS_CURSOR_LENGTH) ?? "");
  return match === null || match[1] !== kind ? null : { after: Number(match[2]), count: Number(match[3]), lastId: match[4] as string };
}

/**
 * A cursor into a search across a user's Notes: the last hit's place in the
 * directory's ranking (its bm25 score, exactly as a double prints, and its
 * row), bound to the user and to the query's words, so it neither pages
 * another user's search nor another query's.
 */
export interface NotesSearchCursor {
  score: number;
  rowid: number;
}

export function encodeNotesSearchCursor(user: string, match: string, after: NotesSearchCursor): string {
  return seal(`${user}\n${match}`, `search~${after.score}~${after.rowid}`);
}

/** Where the next page starts, or null for a cursor not issued to this user for these words. */
export function decodeNotesSearchCursor(user: string, match: string, cursor: string): NotesSearchCursor | null {
  const body = /^search~([^~]{1,32})~(\d{1,15})$/.exec(open(`${user}\n${match}`, cursor, NOTES_SEARCH_CURSOR_LENGTH) ?? "");
  if (body === null) return null;
  const score = Number(body[1]);
  // Only the spelling this code writes: a number that prints back as it was given.
  return Number.isFinite(score) && String(score) === body[1] ? { score, rowid: Number(body[2]) } : null;
}

/** The longest search cursor this code writes (a score of up to 32 characters, a row of 15 digits): longer is not one. */
const NOTES_SEARCH_CURSOR_LENGTH = 120;

/** An items cursor as a caller may send it: a 100-character ID gives one of about 190. */
export const ITEMS_CURSOR_LENGTH = 200;

/**
 * A cursor into a Note's search hits: the last hit's score and key (hits are
 * in score, then key, order), bound to the Note and the query, so a cursor
 * of another query or Note is refused. A commit between two pages moves the
 * scores: a hit may then show twice or not at all, never an error.
 */
export function encodeSearchCursor(noteId: string, query: string, after: { score: number; key: number }): string {
  return seal(`${noteId}\n${query}`, `search:${String(after.score)}:${after.key}`);
}

/** Where the next page of this query's hits starts, or null for a cursor not issued for this Note and query. */
export function decodeSearchCursor(noteId: string, query: string, cursor: string): { score: number; key: number } | null {
  const match = /^search:([-+.0-9e]{1,40}):(\d{1,16})$/.exec(open(`${noteId}\n${query}`, cursor, SEARCH_CURSOR_LENGTH) ?? "");
  if (match === null) return null;
  const score = Number(match[1]);
  const key = Number(match[2]);
  return Number.isFinite(score) && String(score) === match[1] && Number.isSafeInteger(key) ? { score, key } : null;
}

/** A search cursor as a caller may send it: the longest score and key give one of about 90. */
export const SEARCH_CURSOR_LENGTH = 200;

/** A cursor: `body` and its checksum under `scope` (the Note or the user it was issued for), base64url. */
function seal(scope: string, body: string): string {
  return base64url(`${body}.${checksum(scope, body)}`);
}

/** The body of a cursor sealed under `scope`, or null when it was not, or is not spelled as `seal` spells it. */
function open(scope: string, cursor: string, maxLength: number): string | null {
  if (cursor.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    return null;
  }
  const match = /^(.*)\.([0-9a-f]{8})$/s.exec(text);
  if (match === null) return null;
  const body = match[1] as string;
  // atob ignores the spare bits of the last character: only the canonical spelling is this cursor.
  return match[2] === checksum(scope, body) && base64url(text) === cursor ? body : null;
}

function base64url(text: string): string {
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** FNV-1a, 32 bits, as eight hex digits. */
function checksum(scope: string, body: string): string {
  let hash = 0x811c9dc5;
  const text = `${scope}\n${body}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}
