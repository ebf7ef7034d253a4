/**
 * @module
 * The person's API from the page: requests with the session cookie, and one
 * write with the version the person is looking at (`expected_version`).
 */
import { $, say } from "./dom.js";
import { describeChange, idText } from "./feed.js";
import { type ApiError, errorInWords } from "./refusal.js";
import { noteBase, page } from "./state.js";
import type { ChangeEntry } from "./types.js";

export { errorInWords, type ApiError };

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
 * (which tells the person), else is said in general words; any other refusal in `refused`'s words when it
 * has some, else as `errorInWords` says it. Answers whether it was done.
 */
export function write<T extends { version: number }>(
  what: string,
  method: string,
  path: string,
  body: Record<string, unknown> = {},
  done?: (value: T) => void,
  onConflict?: (conflict: Conflict) => void,
  refused?: (error: ApiError) => string | undefined,
): Promise<boolean> {
  // A double click sends the same write twice: the second would carry the same version and meet the first as a
  // conflict nobody made. While one is under way, the same write again is that one.
  const key = `${method} ${path} ${JSON.stringify(body)}`;
  const running = inFlight.get(key);
  if (running !== undefined) return running;
  const sent = send(what, method, path, body, done, onConflict, refused).finally(() => inFlight.delete(key));
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
  refused?: (error: ApiError) => string | undefined,
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
  if (answer.status !== 401) say(`${what}: not done. ${refused?.(answer.error) ?? errorInWords(answer.error)}`);
  return false;
}
