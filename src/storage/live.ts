/**
 * The Note's live sockets (docs/live.md): what the Worker hands the Note
 * object when it forwards a person's upgrade, and what the object sends on
 * the sockets it holds. Sockets are accepted with the hibernation API, so
 * everything a socket needs after the object wakes up again is on the socket
 * itself: its tag names its user, never a field of the object.
 */
import type { ChangeEntry } from "../note/changes.js";
import type { WholeNote } from "../note/commands.js";

/**
 * The header that carries the authenticated user from the Worker to the
 * object. Only the Worker's /live route calls the object's `fetch`, and it
 * builds that request itself: nothing of the incoming request, this header
 * included, reaches the object.
 */
export const LIVE_USER_HEADER = "X-Notes-Live-User";

/** The close code for a socket whose Note is gone to its person: the member removed, or the Note deleted. */
export const NOTE_GONE = 4404;

/** How many of the latest entries a snapshot carries, for the activity feed. */
export const SNAPSHOT_CHANGES = 50;

/**
 * What the server sends, one JSON text frame each. A catch-up longer than a
 * page of the log (LIMITS.changesPageSize) arrives as several `changes`
 * frames, in order; `version` is the Note's version when the socket opened.
 */
export type LiveMessage =
  | { type: "changes"; version: number; changes: ChangeEntry[] }
  /** `note` is null when the Note would make a frame over SNAPSHOT_BYTES: the client reads it through the API. */
  | { type: "snapshot"; version: number; note: WholeNote | null; changes: ChangeEntry[] }
  | { type: "change"; change: ChangeEntry };

/**
 * The largest snapshot frame sent with the Note in it, in bytes: under the 1 MiB a Worker
 * may receive in one WebSocket message (a proxy in between, `wrangler dev`'s among them).
 */
export const SNAPSHOT_BYTES = 1_000_000;

/** What the object needs to open a socket: the Note, the person, and the last version their page has seen. */
export interface LiveOpening {
  noteId: string;
  user: string;
  /** null: the page has nothing yet, so it gets a snapshot. */
  since: number | null;
}

const ORIGIN = "https://note.internal";

/** The request the Worker sends the Note object for an upgrade the resource server authenticated. */
export function liveRequest(opening: LiveOpening): Request {
  const url = new URL(`${ORIGIN}/live`);
  url.searchParams.set("note_id", opening.noteId);
  if (opening.since !== null) url.searchParams.set("since", String(opening.since));
  return new Request(url, { headers: { Upgrade: "websocket", [LIVE_USER_HEADER]: opening.user } });
}

/** The opening a request from `liveRequest` carries; null for any other request. */
export function readLiveRequest(request: Request): LiveOpening | null {
  const url = new URL(request.url);
  const user = request.headers.get(LIVE_USER_HEADER);
  const noteId = url.searchParams.get("note_id");
  const since = url.searchParams.get("since");
  if (url.pathname !== "/live" || user === null || noteId === null || request.headers.get("Upgrade") !== "websocket") return null;
  return { noteId, user, since: since === null ? null : Number(since) };
}
