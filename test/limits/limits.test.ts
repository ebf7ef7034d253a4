/**
 * The abuse limits (issue 11, acceptance 3), with the test project's small limits
 * (vitest.config.ts, given the Worker by useSmallLimits): 5 registrations and 6 requests to /authorize per client
 * address a minute, 3 write and 6 read tool calls per user and client.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import { limiterOf } from "../../src/http/rate-limits.js";
import { dumpDatabase } from "../support/dump.js";
import { personApi, rpc } from "../support/workers.js";
import { fetchFrom, freshAddress, freshUser, inOneWindow, ORIGIN, register, signInFresh, smallLimits, useSmallLimits } from "./support.js";

useSmallLimits();

describe("registration, per client address", () => {
  it("200 registrations from one address in a minute: the first 5 succeed, the rest get 429 rate_limited with Retry-After; another address still registers", async () => {
    await inOneWindow(async () => {
      const address = freshAddress();
      const answers: Response[] = [];
      for (let i = 0; i < 200; i++) answers.push(await register(address));
      expect(answers.map((a) => a.status)).toEqual([...Array<number>(5).fill(201), ...Array<number>(195).fill(429)]);
      for (const refused of answers.slice(5)) expect(refused.headers.get("Retry-After")).toBe("60");
      const body = (await answers[5]?.json()) as Record<string, unknown>;
      expect(body).toEqual({ error: "rate_limited", error_description: expect.stringContaining("60 seconds") });

      expect((await register(freshAddress())).status).toBe(201);
      expect((await register(address)).status).toBe(429);
    });
  });

  it("an IPv6 address counts by its /64; requests without CF-Connecting-IP share one key", async () => {
    await inOneWindow(async () => {
      const statuses = async (addresses: string[]) => Promise.all(addresses.map(async (a) => (await register(a)).status));
      const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:7`;
      const sameHost = [`${prefix}::1`, `${prefix}:0:0:0:2`, `${prefix}:ffff::3`, `${prefix}::4`, `${prefix}::5`];
      expect(await statuses(sameHost)).toEqual([201, 201, 201, 201, 201]);
      expect((await register(`${prefix}:1:2:3:4`)).status).toBe(429);
      expect((await register(`${prefix.replace(/:7$/, ":8")}::1`)).status).toBe(201);

      const unaddressed = () => register("");
      expect(await Promise.all([1, 2, 3, 4, 5].map(unaddressed)).then((all) => all.map((a) => a.status))).toEqual([201, 201, 201, 201, 201]);
      expect((await unaddressed()).status).toBe(429);
    });
  });
});

describe("/authorize, per client address", () => {
  it("past 6 requests a minute an address gets a 429 page with Retry-After; another address does not", async () => {
    await inOneWindow(async () => {
      const address = freshAddress();
      const open = () => fetchFrom(address)(new Request(`${ORIGIN}/authorize?response_type=code&client_id=nobody`));
      const answers: Response[] = [];
      for (let i = 0; i < 8; i++) answers.push(await open());
      expect(answers.slice(0, 6).map((a) => a.status)).not.toContain(429);
      const refused = answers[6] as Response;
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("60");
      expect(refused.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
      expect(await refused.text()).toContain("Too many sign-in attempts");
      expect(answers[7]?.status).toBe(429);

      // The consent form (POST) counts too.
      const post = await fetchFrom(address)(new Request(`${ORIGIN}/authorize`, { method: "POST", body: new URLSearchParams({ handle: "x" }) }));
      expect(post.status).toBe(429);
      const elsewhere = await fetchFrom(freshAddress())(new Request(`${ORIGIN}/authorize?response_type=code&client_id=nobody`));
      expect(elsewhere.status).not.toBe(429);
    });
  });
});

/** A tool call; its result's error (or structured content), the HTTP status and Retry-After. */
async function call(token: string, name: string, args: Record<string, unknown>) {
  const response = await rpc("tools/call", { name, arguments: args }, token);
  const message = (await response.json()) as { result: { isError?: boolean; content: { text: string }[]; structuredContent?: any } };
  const result = message.result;
  return {
    status: response.status,
    retryAfter: response.headers.get("Retry-After"),
    isError: result.isError === true,
    data: result.isError === true ? JSON.parse(result.content[0]?.text ?? "{}").error : result.structuredContent,
  };
}

const dump = (noteId: string) => runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), (_instance, state) => dumpDatabase(state.storage.sql));

describe("tool calls, per user and client", () => {
  it("a client over the write limit gets rate_limited with retry_after_seconds and writes nothing; its reads still pass; another client of the user still writes", async () => {
    await inOneWindow(async () => {
      const user = freshUser("writer");
      const app = await signInFresh(user, "api");
      const agent = await signInFresh(user, "mcp");
      const noteId = `limits-${crypto.randomUUID()}`;
      let version = await personApi(app.access_token).createApprovedNote(noteId, "Limits");

      for (let i = 1; i <= 3; i++) {
        const created = await call(agent.access_token, "create_note_tab", {
          note_id: noteId, expected_version: version, idempotency_key: `deck-${i}`, tab_type: "slides", label: `Deck ${i}`,
        });
        expect(created).toMatchObject({ status: 200, isError: false, retryAfter: null });
        version = created.data.version;
      }

      const before = await dump(noteId);
      const fourth = { note_id: noteId, expected_version: version, idempotency_key: "deck-4", tab_type: "slides", label: "Deck 4" };
      const refused = await call(agent.access_token, "create_note_tab", fourth);
      expect(refused).toMatchObject({ status: 200, isError: true, retryAfter: "60" });
      expect(refused.data).toEqual({ code: "rate_limited", message: expect.stringContaining("changed nothing"), retry_after_seconds: 60 });
      expect(await dump(noteId)).toBe(before);

      // Reads have their own allowance.
      const tabs = await call(agent.access_token, "list_note_tabs", { note_id: noteId });
      expect(tabs).toMatchObject({ isError: false, retryAfter: null });
      expect(tabs.data.version).toBe(version);
      expect(tabs.data.tabs.map((t: { label: string }) => t.label)).not.toContain("Deck 4");

      // The same user through another client: its own allowance, and the refused call's key was never recorded.
      const other = await signInFresh(user, "mcp");
      const resent = await call(other.access_token, "create_note_tab", fourth);
      expect(resent.isError).toBe(false);
      expect(resent.data.replayed).not.toBe(true);
      expect(resent.data.version).toBe(version + 1);
    });
  });

  it("a client over the read limit gets rate_limited too, from list_notes as from any read", async () => {
    await inOneWindow(async () => {
      const agent = await signInFresh(freshUser("reader"), "mcp");
      for (let i = 0; i < 6; i++) expect((await call(agent.access_token, "list_notes", {})).isError).toBe(false);
      const refused = await call(agent.access_token, "list_notes", {});
      expect(refused).toMatchObject({ isError: true, retryAfter: "60", data: { code: "rate_limited", retry_after_seconds: 60 } });
      expect(refused.data.message).not.toContain("idempotency_key");
    });
  });
});

describe("discovery without a token, per client address", () => {
  it("past 6 requests a minute: 429 with Retry-After naming the wait; another address, or a token, still passes", async () => {
    await inOneWindow(async () => {
      const address = freshAddress();
      const headers = { "CF-Connecting-IP": address };
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await rpc("tools/list", {}, null, headers)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
      const refused = await rpc("tools/list", {}, null, headers);
      expect(refused.headers.get("Retry-After")).toBe("60");
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/without a token from this address\. Try again in 60 seconds/);
      expect((await rpc("tools/list", {}, null, { "CF-Connecting-IP": freshAddress() })).status).toBe(200);
      const agent = await signInFresh(freshUser("discoverer"), "mcp");
      expect((await rpc("tools/list", {}, agent.access_token, headers)).status).toBe(200);
    });
  });
});

describe("a deployment cannot lose its limits by accident", () => {
  it("a limit whose binding is missing answers 503 misconfigured, naming it, instead of letting requests through", async () => {
    const without: Env = { ...smallLimits(), TOOL_WRITE_LIMIT: undefined };
    let thrown: unknown;
    try {
      limiterOf(without, "TOOL_WRITE_LIMIT");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HTTPException);
    const answer = (thrown as HTTPException).getResponse();
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ error: { code: "misconfigured", message: expect.stringContaining("no TOOL_WRITE_LIMIT binding") } });
  });
});
