/**
 * @module
 * The person's API from the page: requests with the session cookie, and one
 * write with the version the person is looking at (`expected_version`).
 */
import { $, say } from "./dom.js";
import { describeChange, idText } from "./feed.js";
import { noteBase, page } from "./state.js";
import type { ChangeEntry } from "./types.js";

export type ApiError = { code: string; message: string; [key: string]: unknown };
export type Answer<T> = { ok: true; value: T } | { ok: false; status: number; error: ApiError };

/**
 * A request to a server that went away mid-answer can hang for good: the reconnect waits for a read, so every
 * request gives up after this long (a write's outcome then unknown: the page re-reads and shows what is there).
 */
const API_TIMEOUT_MS = 20_000;

/** A request to the Note's routes (`path` after /api/v1/notes/:id). */
export function api<T>(method: string, path: string, body?: object): Promise<Answer<T>> {
  return request<T>(method, `${noteBase}${path}`, body);
}

/** A request to the person's API at `url` (a path on this origin, e.g. /api/v1/notes); a 401 goes to sign in. */
export async function request<T>(method: string, url: string, body?: object): Promise<Answer<T>> {
  const init: RequestInit = { method, credentials: "same-origin", headers: { accept: "application/json" }, signal: AbortSignal.timeout(API_TIMEOUT_MS) };
  if (body !== undefined) {
    init.headers = { accept: "application/json", "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    return { ok: false, status: 0, error: { code: "offline", message: "The server did not answer; check the connection." } };
  }
  if (response.status === 401) signIn();
  const json: unknown = await response.json().catch(() => null);
  if (response.ok && json !== null) return { ok: true, value: json as T };
  if (response.ok) return { ok: false, status: 0, error: { code: "offline", message: "The server's answer was cut off." } };
  const error = (json as { error?: ApiError } | null)?.error;
  return { ok: false, status: response.status, error: error ?? { code: `http_${response.status}`, message: `The server answered HTTP ${response.status}.` } };
}

/** What each field the page sends is called on the page. */
const FIELD_NAMES: Record<string, string> = {
  label: "The label",
  title: "The title",
  user: "The user ID",
  text: "The Markdown",
  body: "The body",
  notes: "The speaker notes",
  name: "The name",
  columns: "The column names",
  cells: "The cells",
  url: "The URL",
  description: "The description",
  media_type: "The media type",
  size_bytes: "The size",
};

/** What one item of a list the page sends is called: "Column name 2". */
const ITEM_NAMES: Record<string, string> = { columns: "Column name", slides: "Slide", rows: "Row" };

/** A problem of one field as a person reads it: lengths in characters, no API terms. */
function problemInWords(problem: string): string {
  const tooLong = /^at most (\d+) UTF-16 code units \(got (\d+)\)$/.exec(problem);
  if (tooLong !== null) return `is too long: at most ${tooLong[1]} characters (it has ${tooLong[2]})`;
  if (problem.startsWith("must not be empty or blank")) return "must not be empty";
  const control = /^must not contain control characters \((U\+[0-9A-F]+) at index (\d+)\)$/.exec(problem);
  if (control !== null) return `contains a character that cannot be typed into it (${control[1]}, character ${Number(control[2]) + 1})`;
  const surrogate = /^must be well-formed Unicode \(a lone surrogate at index (\d+)\)$/.exec(problem);
  if (surrogate !== null) return `contains half of a character (character ${Number(surrogate[1]) + 1}): type that character again`;
  return problem;
}

/**
 * The server's refusal in a person's words: `invalid_arguments` names each field as the page labels it
 * ("The label is too long: at most 100 characters (it has 120)."), not as the API spells it.
 */
export function errorInWords(error: ApiError): string {
  // A URL the server cannot cite: its reason names the URL already ("the URL contains whitespace, …").
  if (error.code === "invalid_url" && typeof error.reason === "string") return `${error.reason.charAt(0).toUpperCase()}${error.reason.slice(1)}.`;
  // A cell's text too long: the server names it by its path and counts UTF-16 code units.
  const long = error.code === "limit_exceeded" ? /^(cells\S*|cells\[".*"\]) holds (\d+) UTF-16 code units \(at most (\d+)\)\.$/.exec(error.message) : null;
  const longCell = long === null ? null : cellName(long[1] ?? "");
  if (long !== null && longCell !== null) return `The cell “${longCell}” is too long: at most ${long[3]} characters (it has ${long[2]}).`;
  const issues = error.code === "invalid_arguments" && Array.isArray(error.issues) ? (error.issues as { path?: unknown; problem?: unknown }[]) : [];
  if (issues.length === 0) return error.message;
  return issues
    .map((issue) => {
      const path = String(issue.path ?? "");
      const problem = problemInWords(String(issue.problem ?? "is not accepted"));
      // One of a list ("columns[1]": the second name given) or one cell ("cells.Price"): named on its own.
      const item = /^(\w+)\[(\d+)\]/.exec(path);
      if (item !== null) return `${ITEM_NAMES[item[1] ?? ""] ?? "Item"} ${Number(item[2]) + 1}: ${problem}.`;
      const cell = cellName(path);
      if (cell !== null) return `The cell “${cell}” ${problem}.`;
      const field = FIELD_NAMES[path.split(/[.[]/)[0] ?? ""] ?? (path === "" || path.startsWith("(") ? "This" : `The field “${path}”`);
      return `${field} ${problem}.`;
    })
    .join(" ");
}

/** The column a path names, as the server spells it: `cells.Price`, or `cells["a,b"]` for any other name; else null. */
function cellName(path: string): string | null {
  const cell = /^cells(?:\.(\w+)|\[(".*")\])$/.exec(path);
  if (cell === null) return null;
  if (cell[1] !== undefined) return cell[1];
  try {
    const name: unknown = JSON.parse(cell[2] ?? "");
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}

/** When this tab last went to sign in (sessionStorage: it survives the round trip through the consent page). */
export const SIGN_IN_AT = "notes-sign-in-at";

/** A 401: the session is missing or over. Goes to sign-in, once: a 401 right after a sign-in that never read the Note is told, not looped. */
function signIn(): void {
  if (page.stopped) return;
  page.stop("Signing in…");
  const last = Number(sessionStorage.getItem(SIGN_IN_AT) ?? "0");
  if (Date.now() - last < 10_000) {
    say("Sign-in did not give this page access. Reload to try again.");
    return;
  }
  sessionStorage.setItem(SIGN_IN_AT, String(Date.now()));
  location.assign(`/notes/sign-in?return=${encodeURIComponent(location.pathname + location.search)}`);
}

/** A write refused with `version_conflict`: the Note's version now and the changes since the version the page wrote on. */
export interface Conflict {
  expected_version: number;
  current_version: number;
  changes: ChangeEntry[];
  /** False when `changes` is only the first of them (docs/api.md). */
  changes_complete: boolean;
}

/** The changes of a conflict in words, one per change: "v12 Deck Builder changed a slide in slides-2-x: 1 slide". */
export function conflictInWords(conflict: Conflict): string {
  const lines = conflict.changes.map((entry) => `v${entry.version} ${idText(describeChange(entry))}`);
  if (!conflict.changes_complete) lines.push(`and ${conflict.current_version - conflict.expected_version - conflict.changes.length} more`);
  return lines.join("; ");
}

/**
 * One write through the person's API with the version the person is looking at; `done` runs on
 * success, before the re-read shows it. A conflict re-reads, then goes to `onConflict` when given
 * (which tells the person), else is said in general words. Answers whether it was done.
 */
export function write<T extends { version: number }>(
  what: string,
  method: string,
  path: string,
  body: Record<string, unknown> = {},
  done?: (value: T) => void,
  onConflict?: (conflict: Conflict) => void,
): Promise<boolean> {
  // A double click sends the same write twice: the second would carry the same version and meet the first as a
  // conflict nobody made. While one is under way, the same write again is that one.
  const key = `${method} ${path} ${JSON.stringify(body)}`;
  const running = inFlight.get(key);
  if (running !== undefined) return running;
  const sent = send(what, method, path, body, done, onConflict).finally(() => inFlight.delete(key));
  inFlight.set(key, sent);
  return sent;
}

/** The writes under way, by method, path and body. */
const inFlight = new Map<string, Promise<boolean>>();

async function send<T extends { version: number }>(
  what: string,
  method: string,
  path: string,
  body: Record<string, unknown>,
  done?: (value: T) => void,
  onConflict?: (conflict: Conflict) => void,
): Promise<boolean> {
  if (page.note === null || page.stopped) return false;
  const version = page.note.version;
  const answer = method === "DELETE" ? await api<T>(method, `${path}?expected_version=${version}`) : await api<T>(method, path, { ...body, expected_version: version });
  if (answer.ok) {
    // It committed on the version the page showed, so nobody else wrote in between: the person's next change may
    // carry the new version before the re-read has shown this one, instead of meeting their own change as a conflict.
    if (page.note !== null && page.note.version === version) {
      page.note.version = answer.value.version;
      $("note-version").textContent = String(page.note.version);
    }
    done?.(answer.value);
    say(`${what}: done, version ${answer.value.version}.`);
    await page.reread();
    return true;
  }
  if (answer.error.code === "version_conflict") {
    await page.reread();
    if (onConflict !== undefined) {
      onConflict(answer.error as unknown as Conflict);
      return false;
    }
    say(`${what}: not done. The Note changed while you were looking at version ${version}; it now shows version ${page.note?.version ?? version}. Check it and try again.`);
    return false;
  }
  if (answer.status === 0) {
    // No answer: the change may or may not have been made. What the Note holds now says.
    await page.reread();
    say(`${what}: no answer from the server, so it may or may not be done; the page shows the Note as it is now.`);
    return false;
  }
  if (answer.status !== 401) say(`${what}: not done. ${errorInWords(answer.error)}`);
  return false;
}
