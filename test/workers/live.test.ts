/**
 * The Note's live socket (docs/live.md) through the Worker and the real Note
 * object: who may open one, what it sends first, and what closes it.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { signIn } from "../../scripts/lib/sign-in.js";
import { CHANGES_KEPT } from "../../src/note/changes.js";
import { TOKEN_CHECK_MS } from "../../src/storage/live.js";
import type { NoteObject } from "../../src/storage/note-object.js";
import { deliverOwed } from "../support/restart.js";
import { api, failure, fetchWorker, newNote, ok, signInAs, TOKENS, uniqueNoteId, workerFetch } from "../support/workers.js";

const ORIGIN = "http://127.0.0.1:8787";

interface Opening {
  token?: string | null;
  origin?: string;
  since?: number | string;
  headers?: Record<string, string>;
}

/** GET /api/v1/notes/:id/live as an upgrade (unless `headers` says otherwise). */
function openLive(noteId: string, opening: Opening = {}): Promise<Response> {
  const headers: Record<string, string> = { Upgrade: "websocket", ...opening.headers };
  const token = opening.token === undefined ? TOKENS.app : opening.token;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (opening.origin !== undefined) headers.Origin = opening.origin;
  const query = opening.since === undefined ? "" : `?since=${opening.since}`;
  return fetchWorker(`/api/v1/notes/${noteId}/live${query}`, { headers });
}

/** A client end of a live socket: its messages in order, and how it closed. */
class Live {
  readonly #messages: any[] = [];
  readonly #waiting: ((message: any) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (event) => {
      const message = event.data === "pong" ? "pong" : JSON.parse(event.data as string);
      const waiter = this.#waiting.shift();
      if (waiter === undefined) this.#messages.push(message);
      else waiter(message);
    });
    this.closed = new Promise((resolve) => ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })));
    ws.accept();
  }

  /** The next message, waiting for it if none has arrived. */
  next(): Promise<any> {
    const first = this.#messages.shift();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** The messages that have arrived and not been read. */
  pending(): any[] {
    return this.#messages.splice(0);
  }
}

async function connect(noteId: string, opening: Opening = {}): Promise<Live> {
  const response = await openLive(noteId, opening);
  if (response.status !== 101 || response.webSocket === null) throw new Error(`live answered ${response.status}: ${await response.text()}`);
  return new Live(response.webSocket);
}

/** The log's entries after `since`, as the person's API pages them. */
/**
 * The log's entries after `since`, as committed: a page of the log also says whether each can be taken
 * back now (`revertible`), which a socket never tells (live or catching up), so it is left out here.
 */
async function logSince(noteId: string, since: number): Promise<any[]> {
  const entries: any[] = [];
  for (let after: number | null = since; after !== null; ) {
    const page = await api("GET", `/notes/${noteId}/changes?since_version=${after}&limit=200`);
    expect(page.status).toBe(200);
    entries.push(...page.body.changes.map(({ revertible: _now, ...entry }: any) => entry));
    after = page.body.next_since_version;
  }
  return entries;
}

/** After a catch-up: one more change arrives live as `version`, nothing else is waiting; then the socket closes. */
async function liveAgain(live: Live, noteId: string, version: number): Promise<void> {
  await api("PUT", `/notes/${noteId}/markdown`, { text: "live" });
  expect(await live.next()).toMatchObject({ type: "change", change: { version } });
  expect(live.pending()).toEqual([]);
  live.ws.close(1000, "done");
}

/** `count` changes of the person's Markdown, straight on the Note's object (quicker than as many requests); the last version. */
function writeMany(noteId: string, count: number): Promise<number> {
  return runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), async (instance: NoteObject) => {
    let version = 0;
    for (let i = 0; i < count; i++) {
      const result = await instance.execute(noteId, { user: "alice", channel: "app" }, "set_markdown", { text: `draft ${i}` });
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      version = result.value.version;
    }
    return version;
  });
}

/** An answer as a client sees it, with the Note's ID written as NOTE: what must not tell an existing Note from a missing one. */
async function seen(response: Response, noteId: string): Promise<{ status: number; body: string; challenge: string | null }> {
  const body = (await response.text()).replaceAll(noteId, "NOTE");
  return { status: response.status, body, challenge: response.headers.get("WWW-Authenticate") };
}

beforeAll(() => signInAs("agent", "app", "bobApp"));

describe("who may open a Note's socket", () => {
  it("a non-member, a missing token, a foreign Origin, an /mcp token: refused, the same for an existing and a missing Note", async () => {
    const { noteId } = await newNote();
    const missing = uniqueNoteId();
    const cases: Record<string, Opening> = {
      "non-member": { token: TOKENS.bobApp },
      "no token": { token: null },
      "foreign Origin": { origin: "https://evil.example" },
      "Origin null": { origin: "null" },
      "another port of this host": { origin: "http://127.0.0.1:8788" },
      "token for /mcp": { token: TOKENS.agent },
      "non-member naming a member in the internal header": { token: TOKENS.bobApp, headers: { "X-Notes-Live-User": "alice" } },
    };
    const expected: Record<string, number> = {
      "non-member": 404,
      "no token": 401,
      "foreign Origin": 403,
      "Origin null": 403,
      "another port of this host": 403,
      "token for /mcp": 401,
      "non-member naming a member in the internal header": 404,
    };
    for (const [name, opening] of Object.entries(cases)) {
      const existing = await seen(await openLive(noteId, opening), noteId);
      const absent = await seen(await openLive(missing, opening), missing);
      expect({ name, status: existing.status }).toEqual({ name, status: expected[name] });
      expect({ name, ...absent }).toEqual({ name, ...existing });
    }
    const foreign = await (await openLive(noteId, { origin: "https://evil.example" })).json();
    expect(foreign).toMatchObject({ error: { code: "forbidden_origin" } });
    const stranger = await (await openLive(noteId, { token: TOKENS.bobApp })).json();
    expect(stranger).toMatchObject({ error: { code: "note_not_found", note_id: noteId } });
  });

  it("a request that is not an upgrade gets 426 naming the upgrade; a bad since names the field", async () => {
    const { noteId } = await newNote();
    const plain = await openLive(noteId, { headers: { Upgrade: "h2c" } });
    expect({ status: plain.status, upgrade: plain.headers.get("Upgrade"), code: ((await plain.json()) as any).error.code }).toEqual({
      status: 426,
      upgrade: "websocket",
      code: "upgrade_required",
    });
    for (const since of ["-1", "abc", "1.5"]) {
      const bad = await openLive(noteId, { since });
      const body = (await bad.json()) as any;
      expect({ since, status: bad.status, path: body.error.issues[0].path }).toEqual({ since, status: 400, path: "since" });
    }
    const other = await fetchWorker(`/api/v1/notes/${noteId}/live?sinec=1`, { headers: { Upgrade: "websocket", Authorization: `Bearer ${TOKENS.app}` } });
    expect({ status: other.status, body: await other.json() }).toMatchObject({ status: 400, body: { error: { issues: [{ path: "sinec" }] } } });
  });

  it("a page's session cookie opens it from this origin only: another site's page riding on the cookie gets 401", async () => {
    const { noteId } = await newNote();
    const cookie = `notes_session=${encodeURIComponent(TOKENS.app)}`;
    const page = await openLive(noteId, { token: null, origin: ORIGIN, headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" } });
    expect(page.status).toBe(101);
    const live = new Live(page.webSocket as WebSocket);
    expect((await live.next()).type).toBe("snapshot");
    live.ws.close(1000, "done");
    const refused: Record<string, Opening> = {
      "another site": { token: null, origin: "https://evil.example", headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site" } },
      "another port of this host": { token: null, origin: "http://127.0.0.1:8788", headers: { Cookie: cookie, "Sec-Fetch-Site": "same-site" } },
      "no word of where it comes from": { token: null, headers: { Cookie: cookie } },
    };
    for (const [name, opening] of Object.entries(refused)) {
      const answer = await openLive(noteId, opening);
      expect({ name, status: answer.status }).toEqual({ name, status: 401 });
    }
  });

  it("a member opens it with no Origin or with this server's own (through the resource server's CORS wrapper)", async () => {
    const { noteId } = await newNote();
    for (const opening of [{}, { origin: ORIGIN }]) {
      const live = await connect(noteId, opening);
      expect((await live.next()).type).toBe("snapshot");
      live.ws.close(1000, "done");
    }
  });
});

describe("what a socket receives first", () => {
  it("a snapshot past a megabyte comes without the Note (a Worker receives at most 1 MiB a message): the page reads it", async () => {
    const { noteId } = await newNote();
    // 400,000 three-byte characters: 1.2 MB as UTF-8, under the Markdown's 500,000 characters. Straight on the object: the API's body limit is 1 MiB.
    const version = await runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), async (instance: NoteObject) => {
      const result = await instance.execute(noteId, { user: "alice", channel: "app" }, "set_markdown", { text: "€".repeat(400_000) });
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      return result.value.version;
    });
    const live = await connect(noteId);
    const first = await live.next();
    expect({ ...first, changes: first.changes.map((c: any) => c.version) }).toEqual({ type: "snapshot", version, note: null, changes: [1, 2, 3] });
    live.ws.close(1000, "done");
  });

  it("without since: a snapshot of the Note exactly as GET /api/v1/notes/:id answers it", async () => {
    const { noteId } = await newNote();
    await api("PUT", `/notes/${noteId}/markdown`, { text: "# Live" });
    const live = await connect(noteId);
    const first = await live.next();
    const whole = await api("GET", `/notes/${noteId}`);
    expect(first).toMatchObject({ type: "snapshot", version: whole.body.version, note: whole.body });
    live.ws.close(1000, "done");
  });
});

describe("what a socket receives after each commit", () => {
  it("an agent's write and a person's each arrive as one change message carrying the log's entry", async () => {
    const { noteId, version } = await newNote();
    const live = await connect(noteId, { since: version });
    expect(await live.next()).toEqual({ type: "changes", version, changes: [] });

    const created = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", slides: [{ title: "One" }, { title: "Two" }] });
    const agents = await live.next();
    const renamed = await api("PATCH", `/notes/${noteId}/tabs/${created.tab_id}`, { label: "Renamed" });
    const persons = await live.next();

    const log = await logSince(noteId, version);
    expect(log.map((e) => e.version)).toEqual([version + 1, version + 2]);
    expect(agents).toEqual({ type: "change", change: log[0] });
    expect(persons).toEqual({ type: "change", change: log[1] });
    expect(agents.change).toMatchObject({ version: created.version, operation: "create_tab", tab_id: created.tab_id, actor: { kind: "agent", user: "alice", client_id: expect.any(String), client_name: "Local script" } });
    expect(persons.change).toMatchObject({ version: renamed.body.version, operation: "rename_tab", tab_id: created.tab_id, actor: { kind: "person", user: "alice" } });
    expect(live.pending()).toEqual([]);
    live.ws.close(1000, "done");
  });

  it("a failed write sends nothing: the next message is the next commit's", async () => {
    const { noteId, version } = await newNote();
    const live = await connect(noteId, { since: version });
    await live.next();
    const stale = await api("PUT", `/notes/${noteId}/markdown`, { text: "stale", expected_version: version - 1 });
    expect(stale.status).toBe(409);
    const conflict = await failure("create_note_tab", { note_id: noteId, expected_version: version - 1, idempotency_key: "k", tab_type: "slides", slides: [{ title: "Late" }] });
    expect(conflict.code).toBe("version_conflict");
    const tooLong = await api("PATCH", `/notes/${noteId}`, { title: "x".repeat(10_000) });
    expect(tooLong.status).toBe(400);
    const written = await api("PUT", `/notes/${noteId}/markdown`, { text: "kept" });
    expect(await live.next()).toMatchObject({ type: "change", change: { version: written.body.version, operation: "set_markdown" } });
    expect(written.body.version).toBe(version + 1);
    expect(live.pending()).toEqual([]);
    live.ws.close(1000, "done");
  });

  it("every open socket of every member gets each change, in commit order", async () => {
    const { noteId } = await newNote();
    const added = await api("POST", `/notes/${noteId}/members`, { user: "bob" });
    const sockets = [await connect(noteId), await connect(noteId), await connect(noteId, { token: TOKENS.bobApp })];
    for (const live of sockets) expect(await live.next()).toMatchObject({ type: "snapshot", version: added.body.version });
    for (let i = 0; i < 5; i++) await api("PUT", `/notes/${noteId}/markdown`, { text: `v${i}` });
    for (const live of sockets) {
      const got = [];
      for (let i = 0; i < 5; i++) got.push((await live.next()).change.version);
      expect(got).toEqual([1, 2, 3, 4, 5].map((n) => added.body.version + n));
      live.ws.close(1000, "done");
    }
  });
});

describe("reconnecting with since", () => {
  it("gets exactly the entries it missed, none twice, and then the live ones", async () => {
    const { noteId, version } = await newNote();
    const first = await connect(noteId, { since: version });
    await first.next();
    await api("PUT", `/notes/${noteId}/markdown`, { text: "seen" });
    const seen = (await first.next()).change.version as number;
    first.ws.close(1000, "dropped");
    await first.closed;
    for (let i = 0; i < 3; i++) await api("PUT", `/notes/${noteId}/markdown`, { text: `missed ${i}` });

    const again = await connect(noteId, { since: seen });
    const catchUp = await again.next();
    expect(catchUp).toEqual({ type: "changes", version: seen + 3, changes: await logSince(noteId, seen) });
    expect(catchUp.changes.map((e: any) => e.version)).toEqual([seen + 1, seen + 2, seen + 3]);
    await liveAgain(again, noteId, seen + 4);
  });

  it("a long catch-up arrives in pages of at most 200 entries, all of them in order", async () => {
    const { noteId, version } = await newNote();
    const last = await writeMany(noteId, 450);
    const live = await connect(noteId, { since: version });
    const pages = [await live.next(), await live.next(), await live.next()];
    expect(pages.map((p) => [p.type, p.version, p.changes.length])).toEqual([
      ["changes", last, 200],
      ["changes", last, 200],
      ["changes", last, 50],
    ]);
    expect(pages.flatMap((p) => p.changes.map((e: any) => e.version))).toEqual(Array.from({ length: 450 }, (_, i) => version + 1 + i));
    await liveAgain(live, noteId, last + 1);
  });

  it("a since older than the log keeps, or ahead of the Note, gets a snapshot with the latest entries", async () => {
    const { noteId, version } = await newNote();
    const last = await writeMany(noteId, CHANGES_KEPT + 5);
    const oldest = (await api("GET", `/notes/${noteId}/changes?since_version=${last - 1}`)).body.oldest_version as number;
    expect(oldest).toBe(last - CHANGES_KEPT + 1);
    const whole = await api("GET", `/notes/${noteId}`);
    const recent = await logSince(noteId, last - 50);
    for (const since of [version, oldest - 2, last + 1]) {
      const live = await connect(noteId, { since });
      expect({ since, first: await live.next() }).toEqual({ since, first: { type: "snapshot", version: last, note: whole.body, changes: recent } });
      live.ws.close(1000, "done");
    }
    // The oldest entry kept is the first one after oldest - 1: the log still covers it.
    const covered = await connect(noteId, { since: oldest - 1 });
    const firstPage = await covered.next();
    expect([firstPage.type, firstPage.changes[0].version]).toEqual(["changes", oldest]);
    covered.ws.close(1000, "done");
  });
});

describe("what closes a socket", () => {
  it("removing a member closes that member's sockets with 4404, and only theirs; the others get the removal", async () => {
    const { noteId } = await newNote();
    await api("POST", `/notes/${noteId}/members`, { user: "bob" });
    const alice = await connect(noteId);
    const bob = await connect(noteId, { token: TOKENS.bobApp });
    await alice.next();
    await bob.next();
    const removed = await api("DELETE", `/notes/${noteId}/members/bob`);
    expect(removed.status).toBe(200);
    expect((await bob.closed).code).toBe(4404);
    expect(bob.pending()).toEqual([]);
    expect(await alice.next()).toMatchObject({ type: "change", change: { version: removed.body.version, operation: "remove_member", member: "bob" } });
    expect((await openLive(noteId, { token: TOKENS.bobApp })).status).toBe(404);
    await api("PUT", `/notes/${noteId}/markdown`, { text: "still open" });
    expect(await alice.next()).toMatchObject({ type: "change", change: { version: removed.body.version + 1 } });
    alice.ws.close(1000, "done");
  });

  it("deleting the Note closes every member's socket with 4404", async () => {
    const { noteId } = await newNote();
    await api("POST", `/notes/${noteId}/members`, { user: "bob" });
    const alice = await connect(noteId);
    const bob = await connect(noteId, { token: TOKENS.bobApp });
    await alice.next();
    await bob.next();
    const deleted = await api("DELETE", `/notes/${noteId}`);
    expect(deleted.status).toBe(200);
    expect(await alice.next()).toMatchObject({ type: "change", change: { version: deleted.body.version, operation: "delete_note" } });
    expect((await alice.closed).code).toBe(4404);
    expect((await bob.closed).code).toBe(4404);
    const again = await openLive(noteId);
    expect(again.status).toBe(404);
  });

  it("answers a ping without a change, and closes on any other message (the socket only sends)", async () => {
    const { noteId } = await newNote();
    const live = await connect(noteId);
    await live.next();
    live.ws.send("ping");
    expect(await live.next()).toBe("pong");
    live.ws.send('{"type":"hello"}');
    expect((await live.closed).code).toBe(1003);
  });
});

describe("a socket whose token ends", () => {
  // Each test rings its Note's alarm itself: first the Note has delivered its creation's search documents (by that alarm).
  const send = (request: Request) => workerFetch(request);
  const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
  const alarmOf = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => state.storage.getAlarm());
  /** A page's token of its own for alice, so that ending it ends no other test's. */
  const pageToken = () => signIn({ origin: ORIGIN, user: "alice", scopes: ["osfoundry:app"], resource: "api", fetch: send });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("closes with 4401 when its token expires: the object's alarm is set for it, and rings no later than the expiry", async () => {
    const tokens = await pageToken();
    const issued = Date.now();
    const { noteId } = await newNote();
    await deliverOwed(noteId);
    const live = await connect(noteId, { token: tokens.access_token });
    await live.next();
    const alarm = await alarmOf(noteId);
    expect(alarm).not.toBeNull();
    expect(alarm as number).toBeLessThanOrEqual(Math.min(Date.now() + TOKEN_CHECK_MS, issued + tokens.expires_in * 1000 + 1000));
    // A check before the expiry leaves the socket open, and sets the next one.
    expect(await runDurableObjectAlarm(stubOf(noteId))).toBe(true);
    expect(await alarmOf(noteId)).not.toBeNull();
    await liveAgainOpen(live, noteId);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(issued + (tokens.expires_in + 1) * 1000);
    expect(await runDurableObjectAlarm(stubOf(noteId))).toBe(true);
    expect(await live.closed).toEqual({ code: 4401, reason: "your session expired: sign in again" });
  });

  it(`closes with 4401 at the next check once its grant is revoked (a check every ${TOKEN_CHECK_MS / 1000} s while sockets are open); another grant's socket stays`, async () => {
    const tokens = await pageToken();
    const { noteId } = await newNote();
    await deliverOwed(noteId);
    const revoked = await connect(noteId, { token: tokens.access_token });
    const other = await connect(noteId);
    await revoked.next();
    await other.next();
    const revocation = await send(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: tokens.refresh_token as string, client_id: tokens.client_id }),
      }),
    );
    expect(revocation.status).toBe(200);
    // The bound: the check is due within TOKEN_CHECK_MS of now (alarms ring by themselves; the test rings it at once).
    expect((await alarmOf(noteId)) as number).toBeLessThanOrEqual(Date.now() + TOKEN_CHECK_MS);
    expect(await runDurableObjectAlarm(stubOf(noteId))).toBe(true);
    expect(await revoked.closed).toEqual({ code: 4401, reason: "your access was revoked: sign in again" });
    await liveAgainOpen(other, noteId);
    other.ws.close(1000, "done");
  });

  it("closes with 4401 once the one access token it was opened with is revoked, though its grant lives on", async () => {
    const tokens = await pageToken();
    const { noteId } = await newNote();
    await deliverOwed(noteId);
    const live = await connect(noteId, { token: tokens.access_token });
    await live.next();
    const revocation = await send(
      new Request(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: tokens.access_token, client_id: tokens.client_id }),
      }),
    );
    expect(revocation.status).toBe(200);
    expect(await runDurableObjectAlarm(stubOf(noteId))).toBe(true);
    expect((await live.closed).code).toBe(4401);
  });
});

/** One more change reaches the open socket. */
async function liveAgainOpen(live: Live, noteId: string): Promise<void> {
  const written = await api("PUT", `/notes/${noteId}/markdown`, { text: `still open ${Math.random()}` });
  expect(written.status).toBe(200);
  expect(await live.next()).toMatchObject({ type: "change", change: { version: written.body.version } });
}
