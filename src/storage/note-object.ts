/**
 * The Note as a Durable Object: one instance per `note_id`, so its writes are
 * serialized. A thin shell: it migrates its SQLite schema in the constructor,
 * hands each operation to the Note's rules (src/note), which run it in one
 * transaction, and after the commit does the I/O that must not sit inside it:
 * directory deliveries, the alarm that prunes idempotency records, and the
 * erasure of a deleted Note once every member's directory has dropped it.
 * It also holds its people's live sockets (src/storage/live.ts, docs/live.md).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import { KEYED_COMMANDS, LIMITS, Note, ok, type Result, type ChangeEntry, type Caller, type ChangePage, type CommandName, type Input, type Output } from "../note/index.js";
import { settingsOf } from "../settings.js";
import { deliverDirectoryEntries } from "./directory-outbox.js";
import { accessTokenStands } from "../auth/token-cache.js";
import { NOTE_GONE, readLiveRequest, SNAPSHOT_BYTES, SNAPSHOT_CHANGES, TOKEN_CHECK_MS, TOKEN_ENDED, type LiveMessage, type LiveOpening, type LiveToken } from "./live.js";
import { NOTE_MIGRATIONS } from "./migrations.js";
import { SEARCH_DELIVERY_MS } from "../note/search/contract.js";
import { Sql } from "./sql.js";
import { SqliteNoteStore } from "./sqlite-note-store.js";

const KEYED: ReadonlySet<CommandName> = new Set(KEYED_COMMANDS);
/** How soon the alarm retries a directory entry that could not be delivered. */
const REDELIVERY_MS = 30_000;

export class NoteObject extends DurableObject<Env> {
  protected readonly sql: Sql;
  protected readonly store: SqliteNoteStore;
  readonly #retentionMs: number;
  /** When the alarm is set to ring (null: none), once read; saves a storage read on every write. */
  #alarmAt: number | null | undefined;
  #note: Note | undefined;
  /** Whether the schema is in place: false once a deleted Note's storage was erased, until the next operation. */
  #migrated = false;
  /** The running directory delivery: one at a time, so entries reach a directory in the order they were queued. */
  #delivering: Promise<number> = Promise.resolve(0);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = new Sql(ctx.storage.sql);
    this.store = new SqliteNoteStore(this.sql, ctx.storage);
    this.#retentionMs = settingsOf(env).idempotencyRetentionMs;
    this.#migrate();
    // Keep-alive pings are answered without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** Runs one operation of the Note's rules; the Note runs it in one transaction. */
  async execute<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Result<Output<K>>> {
    // After an erasure the database is empty, tables and all: a later create_note starts a new Note.
    this.#migrate();
    const result = this.#noteFor(noteId).execute(caller, name, input);
    // What committed goes to the open sockets now, outside the transaction and before any await: in commit order.
    this.#broadcast(this.store.takeCommittedChanges());
    // The alarm before the delivery: an erasure at its end (deleteAll) takes any alarm with it.
    if (result.ok && KEYED.has(name)) await this.#alarmBy(Date.now() + this.#retentionMs);
    // A reset before the removals are delivered would leave a tombstone nothing retries (every later call answers
    // note_not_found and delivers nothing): the alarm does, and the erasure takes it with it.
    if (result.ok && name === "delete_note") await this.#alarmBy(Date.now() + REDELIVERY_MS);
    // What a member's list shows goes before the answer; search documents alone go soon after it, many writes in one call.
    const queued = this.store.queuedDirectoryEntries();
    if (queued === "now") await this.#deliver();
    else if (queued === "soon") await this.#alarmBy(Date.now() + SEARCH_DELIVERY_MS);
    return result;
  }

  /**
   * A person's live socket, forwarded by the Worker's /live route once the
   * resource server authenticated them. The first frames are computed before
   * the socket is accepted, with no await in between: no commit can fall
   * between them and the first broadcast the socket receives.
   */
  override async fetch(request: Request): Promise<Response> {
    const opening = readLiveRequest(request);
    if (opening === null) throw new Error("the Note object's fetch serves only the Worker's live requests");
    this.#migrate();
    const first = this.#firstFrames(opening);
    if (!first.ok) return Response.json({ error: first.error }, { status: first.error.code === "note_not_found" ? 404 : 422 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    this.ctx.acceptWebSocket(server, [opening.user]);
    // The token goes with the socket (it survives hibernation): the alarm closes the socket when the token ends.
    server.serializeAttachment(opening.token);
    for (const frame of first.value) server.send(frame);
    await this.#alarmBy(nextTokenCheck(opening.token, Date.now()));
    return new Response(null, { status: 101, webSocket: client });
  }

  /** The socket only sends: a client's message other than the keep-alive ping closes it. */
  override webSocketMessage(ws: WebSocket): void {
    ws.close(1003, "this socket only sends; reconnect to catch up");
  }

  /** The client closed: close our side too (a socket left half-open is never reused). */
  override webSocketClose(ws: WebSocket, code: number): void {
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
    } catch {
      // Already closed.
    }
  }

  override webSocketError(): void {
    // The runtime has closed the socket and forgets it; nothing of it is kept elsewhere.
  }

  /**
   * What a socket receives first: every entry after `since`, in pages, when
   * the log still holds them all; else (no `since`, entries pruned, or a
   * `since` ahead of the Note, as after a deletion and a new Note under the
   * same ID) a snapshot. The domain checks membership on every read.
   */
  #firstFrames({ noteId, user, since }: LiveOpening): Result<string[]> {
    const note = this.#noteFor(noteId);
    const caller: Caller = { user, channel: "app" };
    const head = note.execute(caller, "list_changes", { since_version: 0, limit: 1 });
    if (!head.ok) return head;
    const { version, oldest_version: oldest } = head.value;
    const covered = since !== null && since <= version && (since === version || (oldest !== null && oldest <= since + 1));
    if (!covered) {
      const whole = note.execute(caller, "read_note", {});
      if (!whole.ok) return whole;
      const recent = note.execute(caller, "list_changes", { since_version: Math.max(0, version - SNAPSHOT_CHANGES), limit: SNAPSHOT_CHANGES });
      if (!recent.ok) return recent;
      const changes = asCommitted(recent.value.changes);
      const snapshot = JSON.stringify({ type: "snapshot", version, note: whole.value, changes } satisfies LiveMessage);
      if (new TextEncoder().encode(snapshot).byteLength <= SNAPSHOT_BYTES) return ok([snapshot]);
      return ok([JSON.stringify({ type: "snapshot", version, note: null, changes } satisfies LiveMessage)]);
    }
    const frames: string[] = [];
    let after: number | null = since;
    while (after !== null) {
      const page: Result<ChangePage> = note.execute(caller, "list_changes", { since_version: after, limit: LIMITS.changesPageSize });
      if (!page.ok) return page;
      frames.push(JSON.stringify({ type: "changes", version, changes: asCommitted(page.value.changes) } satisfies LiveMessage));
      after = page.value.next_since_version;
    }
    return ok(frames);
  }

  /**
   * Sends each committed entry to every open socket. A member's removal
   * closes their sockets first (they see nothing after it); a deletion
   * reaches everyone, then closes every socket.
   */
  #broadcast(changes: ChangeEntry[]): void {
    if (changes.length === 0) return;
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    for (const change of changes) {
      if (change.operation === "remove_member" && change.member !== undefined) this.#closeSockets(change.member, "you are no longer a member of this Note");
      const frame = JSON.stringify({ type: "change", change } satisfies LiveMessage);
      for (const ws of sockets) {
        if (ws.readyState !== WebSocket.OPEN) continue;
        try {
          ws.send(frame);
        } catch {
          // Closed under us: its client reconnects and catches up.
        }
      }
      if (change.operation === "delete_note") this.#closeSockets(null, "the Note was deleted");
    }
  }

  /** Closes `user`'s sockets (null: everyone's) with NOTE_GONE. */
  #closeSockets(user: string | null, reason: string): void {
    for (const ws of user === null ? this.ctx.getWebSockets() : this.ctx.getWebSockets(user)) closeSocket(ws, NOTE_GONE, reason);
  }

  /**
   * Closes the sockets whose token ended, prunes idempotency records past
   * retention and retries undelivered directory entries (and a deleted Note's erasure).
   */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    const sockets = await this.#closeEndedTokens();
    if (!this.#migrated) {
      if (sockets !== null) await this.#alarmBy(sockets);
      return;
    }
    // Records past retention, and the touch index's keys older than the log, go when the oldest record is due: an
    // alarm that rang to deliver search documents (SEARCH_DELIVERY_MS) changes nothing of the Note.
    let oldest = this.store.oldestIdempotency();
    if (oldest !== null && oldest + this.#retentionMs <= Date.now()) oldest = this.#noteFor(this.store.readMeta()?.note_id ?? "").pruneIdempotency(this.#retentionMs).oldest;
    const owed = await this.#deliver();
    if (!this.#migrated) return;
    const next = [oldest === null ? null : oldest + this.#retentionMs, owed > 0 ? Date.now() + REDELIVERY_MS : null, sockets].filter(
      (t): t is number => t !== null,
    );
    // An alarm set for the instant already running may never ring again: always a later one.
    if (next.length > 0) await this.#alarmBy(Math.max(Math.min(...next), Date.now() + 1));
  }

  /**
   * Closes with TOKEN_ENDED every open socket whose token has expired or
   * whose token's record is gone from OAUTH_KV (the token revoked, or its
   * grant: sign-out, a replayed refresh token, a revocation). One read per
   * token, however many sockets it opened. Returns when the open sockets need
   * the next check (null: none open).
   */
  async #closeEndedTokens(): Promise<number | null> {
    const now = Date.now();
    const byRecord = new Map<string, WebSocket[]>();
    let next: number | null = null;
    for (const ws of this.ctx.getWebSockets()) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      const token = (ws.deserializeAttachment() as LiveToken | null) ?? { expiresAt: null, recordKey: null };
      if (token.expiresAt !== null && token.expiresAt <= now) {
        closeSocket(ws, TOKEN_ENDED, "your session expired: sign in again");
        continue;
      }
      if (token.recordKey !== null) {
        const sockets = byRecord.get(token.recordKey);
        if (sockets === undefined) byRecord.set(token.recordKey, [ws]);
        else sockets.push(ws);
      }
      const check = nextTokenCheck(token, now);
      next = next === null ? check : Math.min(next, check);
    }
    for (const [recordKey, sockets] of byRecord) {
      let stands = true;
      try {
        stands = await accessTokenStands(this.env.OAUTH_KV, recordKey);
      } catch (error) {
        // KV unreachable: the sockets stay, and the next check asks again.
        console.error("checking a live socket's token failed; the next check tries again", error);
      }
      if (!stands) for (const ws of sockets) closeSocket(ws, TOKEN_ENDED, "your access was revoked: sign in again");
    }
    return next;
  }

  /** The Note's rules over this object's store; one object is one Note, so it is built once. */
  #noteFor(noteId: string): Note {
    if (this.#note?.id !== noteId) this.#note = new Note(noteId, this.store, { now: Date.now });
    return this.#note;
  }

  #migrate(): void {
    if (this.#migrated) return;
    this.store.migrate(NOTE_MIGRATIONS);
    this.#migrated = true;
  }

  /** Delivers the outbox after the deliveries already running; returns how many entries are still owed. */
  #deliver(): Promise<number> {
    // A delivery that threw (a storage error) must not stop every later one.
    this.#delivering = this.#delivering.then(
      () => this.#deliverNow(),
      () => this.#deliverNow(),
    );
    return this.#delivering;
  }

  async #deliverNow(): Promise<number> {
    if (!this.#migrated) return 0;
    const owed = await deliverDirectoryEntries(this.store, this.env.DIRECTORY);
    if (owed > 0) await this.#alarmBy(Date.now() + REDELIVERY_MS);
    else await this.#eraseIfDeleted();
    return owed;
  }

  /**
   * A deleted Note whose removal every member's directory has taken: erase
   * the whole database and the alarm with it (deleteAll). Until then it stays
   * a tombstone that answers note_not_found, and the alarm retries the removals.
   */
  async #eraseIfDeleted(): Promise<void> {
    if (this.store.readMeta()?.deleted !== true || this.store.owesDirectoryEntries()) return;
    this.#migrated = false;
    this.#note = undefined;
    try {
      await this.ctx.storage.deleteAll();
      this.#alarmAt = null;
    } catch (error) {
      // Nothing was erased: the tombstone stands, and the alarm tries again.
      this.#migrated = true;
      console.error("erasing a deleted Note failed; the alarm retries it", error);
      await this.#alarmBy(Date.now() + REDELIVERY_MS);
    }
  }

  /** Makes sure the alarm rings no later than `at`. */
  async #alarmBy(at: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }
}

function closeSocket(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closing.
  }
}

/** When a socket with this token needs its next check: its expiry, or TOKEN_CHECK_MS from now for a revocation, whichever is first. */
function nextTokenCheck(token: LiveToken, now: number): number {
  const poll = now + TOKEN_CHECK_MS;
  return token.expiresAt === null ? poll : Math.min(poll, Math.max(token.expiresAt, now + 1));
}

/**
 * The socket tells each entry as it was committed, whether it comes live or in a catch-up: a page of the
 * log also says whether an entry can be taken back now (`revertible`), which the next change may undo.
 */
function asCommitted(changes: readonly ChangeEntry[]): ChangeEntry[] {
  return changes.map(({ revertible: _now, ...entry }) => entry);
}
