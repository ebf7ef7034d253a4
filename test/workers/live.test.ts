/**
 * The Note's live socket (docs/live.md) through the Worker and the real Note
 * object: who may open one, what it sends first, and what closes it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, fetchWorker, newNote, signInEveryone, TOKENS, uniqueNoteId } from "../support/workers.js";

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

/** An answer as a client sees it, with the Note's ID written as NOTE: what must not tell an existing Note from a missing one. */
async function seen(response: Response, noteId: string): Promise<{ status: number; body: string; challenge: string | null }> {
  const body = (await response.text()).replaceAll(noteId, "NOTE");
  return { status: response.status, body, challenge: response.headers.get("WWW-Authenticate") };
}

beforeAll(signInEveryone);

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

describe("what closes a socket", () => {
  it("deleting the Note closes every member's socket with 4404", async () => {
    const { noteId } = await newNote();
    await api("POST", `/notes/${noteId}/members`, { user: "bob" });
    const alice = await connect(noteId);
    const bob = await connect(noteId, { token: TOKENS.bobApp });
    await alice.next();
    await bob.next();
    expect((await api("DELETE", `/notes/${noteId}`)).status).toBe(200);
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
