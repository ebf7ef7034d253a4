/**
 * The Note's live sockets (docs/live.md): what the Worker hands the Note
 * object when it forwards a person's upgrade, and what the object sends on
 * the sockets it holds. Sockets are accepted with the hibernation API, so
 * everything a socket needs after the object wakes up again is on the socket
 * itself: its tag names its user, never a field of the object.
 */
import { accessTokenRecordKey } from "../auth/token-cache.js";
import type { ChangeEntry, WholeNote } from "../note/index.js";

/**
 * The header that carries the authenticated user from the Worker to the
 * object. Only the Worker's /live route calls the object's `fetch`, and it
 * builds that request itself: nothing of the incoming request, this header
 * included, reaches the object.
 */
const LIVE_USER_HEADER = "X-Notes-Live-User";

/**
 * The header that carries the token the socket was opened with, as the
 * object needs it to close the socket when the token ends: its expiry and the
 * key of its record in OAUTH_KV (never the token itself). Built by the Worker
 * as `LIVE_USER_HEADER` is.
 */
const LIVE_TOKEN_HEADER = "X-Notes-Live-Token";

/** The close code for a socket whose Note is gone to its person: the member removed, or the Note deleted. */
export const NOTE_GONE = 4404;

/** The close code for a socket whose token ended: it expired, or it (or its grant) was revoked. The client signs in again. */
export const TOKEN_ENDED = 4401;

/**
 * How often the object checks, while it holds sockets, that their tokens were
 * not revoked: the most a revoked token's socket stays open (plus KV's own
 * propagation between locations when deployed). Expiry closes a socket at
 * its token's expiry, to the alarm's precision.
 */
export const TOKEN_CHECK_MS = 30_000;

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

/** The token a socket was opened with, as the object keeps it on the socket (its attachment). */
export interface LiveToken {
  /** When the token expires, in milliseconds since the epoch (null: no expiry known). */
  expiresAt: number | null;
  /** Its record's key in OAUTH_KV (`accessTokenRecordKey`): gone once it is revoked. Null: nothing to check. */
  recordKey: string | null;
}

/** What the object needs to open a socket: the Note, the person, the last version their page has seen, and the token. */
export interface LiveOpening {
  noteId: string;
  user: string;
  /** null: the page has nothing yet, so it gets a snapshot. */
  since: number | null;
  token: LiveToken;
}

const ORIGIN = "https://note.internal";

/** The request the Worker sends the Note object for an upgrade the resource server authenticated. */
export function liveRequest(opening: LiveOpening): Request {
  const url = new URL(`${ORIGIN}/live`);
  url.searchParams.set("note_id", opening.noteId);
  if (opening.since !== null) url.searchParams.set("since", String(opening.since));
  return new Request(url, { headers: { Upgrade: "websocket", [LIVE_USER_HEADER]: opening.user, [LIVE_TOKEN_HEADER]: JSON.stringify(opening.token) } });
}

/** The opening a request from `liveRequest` carries; null for any other request. */
export function readLiveRequest(request: Request): LiveOpening | null {
  const url = new URL(request.url);
  const user = request.headers.get(LIVE_USER_HEADER);
  const noteId = url.searchParams.get("note_id");
  const since = url.searchParams.get("since");
  if (url.pathname !== "/live" || user === null || noteId === null || request.headers.get("Upgrade") !== "websocket") return null;
  return { noteId, user, since: since === null ? null : Number(since), token: readToken(request.headers.get(LIVE_TOKEN_HEADER)) };
}

function readToken(header: string | null): LiveToken {
  try {
    const token = JSON.parse(header ?? "null") as Partial<LiveToken> | null;
    return {
      expiresAt: typeof token?.expiresAt === "number" ? token.expiresAt : null,
      recordKey: typeof token?.recordKey === "string" ? token.recordKey : null,
    };
  } catch {
    return { expiresAt: null, recordKey: null };
  }
}

/** The socket's token from what the resource server verified (`expiresAt` in seconds there). */
export async function liveTokenOf(auth: { token: string; expiresAt?: number }): Promise<LiveToken> {
  return { expiresAt: auth.expiresAt === undefined ? null : auth.expiresAt * 1000, recordKey: await accessTokenRecordKey(auth.token) };
}
