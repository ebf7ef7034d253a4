/**
 * End to end (issue 13, acceptance 2, the server's side): a client follows a
 * Note's live socket under `wrangler dev` while an agent and the person
 * write; the server restarts a third of the way in with the writes still
 * coming, and the client stays away for another third (so it misses
 * commits), then reconnects with the last version it saw while the writes
 * go on. It ends with exactly one entry per version, up to the Note's
 * version, none twice, none missing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { signIn } from "../../scripts/lib/sign-in.js";
import { orThrow, PersonApi } from "../../scripts/lib/person-api.js";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer } from "../../scripts/local-server.js";
import { LiveFollower } from "../support/live-follower.js";

const WRITES = 30;
/** The write after which the server restarts (the writer does not wait for it). */
const RESTART_AFTER = 10;
/** The write after which the client may reconnect. */
const RECONNECT_AFTER = 20;

let server: LocalServer | undefined;
let persistDir: string | undefined;

afterAll(async () => {
  await server?.stop();
  if (persistDir !== undefined) await removeDir(persistDir);
});

/** True from the server's stop until the new one answers: what it says meanwhile is not the connector's. */
let restarting = false;

/**
 * Calls `attempt` until it does not throw, a quarter second apart: on a
 * network failure or a timeout (the server is down, or was stopped with the
 * call in flight), and on anything while the server restarts.
 */
async function persist<T>(attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const lost = error instanceof TypeError || (error instanceof Error && error.name === "TimeoutError");
      if (!lost && !restarting) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** An agent's create_note_tab through /mcp, by JSON-RPC; its structured result. A resend with the same key replays. */
async function agentWrite(url: string, token: string, args: Record<string, unknown>): Promise<{ version: number }> {
  const response = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_note_tab", arguments: args } }),
  });
  const message = (await response.json()) as any;
  if (message.result === undefined || message.result.isError === true) throw new Error(`create_note_tab failed: ${JSON.stringify(message)}`);
  return message.result.structuredContent;
}

describe("following a Note live across a server restart", () => {
  it("ends with exactly one entry per version up to the Note's version, in order", async () => {
    const port = await freePort();
    persistDir = await tempPersistDir();
    server = await startLocalServer({ port, persistTo: persistDir });
    const url = server.url;
    const person = (await signIn({ origin: url, user: "alice", scopes: ["osfoundry:app"], resource: "api" })).access_token;
    const agent = (await signIn({ origin: url, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" })).access_token;
    const api = new PersonApi({ origin: url, token: person, timeoutMs: 10_000 });
    const noteId = "live-e2e";
    let version = await api.createApprovedNote(noteId, "Followed");

    const follower = new LiveFollower(url, noteId, person);
    await follower.start();
    expect(follower.seen).toBe(version);
    const start = version;

    let restarted: Promise<void> | undefined;
    for (let i = 1; i <= WRITES; i++) {
      if (i % 3 === 0) {
        const args = { note_id: noteId, expected_version: version, idempotency_key: `deck-${i}`, tab_type: "slides", label: `Deck ${i}`, slides: [{ title: `Slide ${i}` }] };
        version = (await persist(() => agentWrite(url, agent, args))).version;
      } else {
        version = (await persist(async () => orThrow(await api.setMarkdown(noteId, { text: `# Draft ${i}` }), `write ${i}`))).version;
      }
      if (i === RECONNECT_AFTER) {
        follower.release();
      }
      if (i === RESTART_AFTER) {
        follower.hold();
        const running = server;
        restarting = true;
        restarted = running.stop().then(async () => {
          server = await startLocalServer({ port, persistTo: persistDir });
          restarting = false;
        });
      }
    }
    await restarted;

    const final = (await api.request("GET", `/notes/${noteId}`)).body as { version: number };
    expect(final.version).toBe(version);
    await follower.reach(final.version);
    follower.stop();

    const log: unknown[] = [];
    for (let after: number | null = start; after !== null; ) {
      const page = (await api.request("GET", `/notes/${noteId}/changes?since_version=${after}&limit=200`)).body as any;
      log.push(...page.changes);
      after = page.next_since_version;
    }
    expect(follower.reconnects).toBeGreaterThanOrEqual(1);
    expect(follower.ignored).toBe(0);
    // It missed commits while away, and the catch-up brought them.
    expect(follower.caughtUp).toBeGreaterThan(0);
    expect(follower.applied.map((e) => e.version)).toEqual(Array.from({ length: final.version - start }, (_, i) => start + 1 + i));
    // A page of the log says of each entry whether it can be taken back now (`revertible`); the socket tells entries as committed.
    expect(follower.applied).toEqual(log.map((entry) => {
      const { revertible: _now, ...committed } = entry as Record<string, unknown>;
      return committed;
    }));
  }, 240_000);
});
