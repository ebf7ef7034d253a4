/** Helpers for tests that run inside workerd: the person's API and raw MCP calls, through the Worker's own fetch. */
import { createExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll } from "vitest";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env.js";
import worker from "../../src/index.js";
import { PersonApi, orThrow } from "../../scripts/lib/person-api.js";
import { signIn } from "../../scripts/lib/sign-in.js";

type Role = "agent" | "reader" | "app" | "bobAgent" | "bobApp";

const ROLES: Record<Role, { user: string; scopes: string[]; resource: "mcp" | "api" }> = {
  agent: { user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" },
  reader: { user: "alice", scopes: ["osfoundry:read"], resource: "mcp" },
  app: { user: "alice", scopes: ["osfoundry:app"], resource: "api" },
  bobAgent: { user: "bob", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" },
  bobApp: { user: "bob", scopes: ["osfoundry:app"], resource: "api" },
};

const signedIn: Partial<Record<Role, string>> = {};
const signingIn: Partial<Record<Role, Promise<string>>> = {};

/**
 * A role's access token, signed in through the real OAuth flow the first time
 * this runtime needs it (the workers files share theirs, one after another,
 * and the sign-ins with it): a file pays only for the roles no file before it used. The helpers below call it for their default tokens.
 */
export function tokenOf(role: Role): Promise<string> {
  return (signingIn[role] ??= signIn({ origin: BASE, ...ROLES[role], fetch: workerFetch }).then((tokens) => (signedIn[role] = tokens.access_token)));
}

/** Signs these roles in (one after another), unless this test file already did: call it in `beforeAll` before reading `TOKENS`. */
export async function signInAs(...roles: Role[]): Promise<void> {
  for (const role of roles) await tokenOf(role);
}

/** Signs every role in. */
export function signInEveryone(): Promise<void> {
  return signInAs(...(Object.keys(ROLES) as Role[]));
}

/**
 * The tokens of the roles this file signed in (`signInAs`); reading one it did
 * not is an error that says so, not an empty token and a puzzling 401.
 */
export const TOKENS: Readonly<Record<Role, string>> = new Proxy({} as Record<Role, string>, {
  get(_target, role) {
    if (typeof role !== "string" || !(role in ROLES)) return undefined;
    const token = signedIn[role as Role];
    if (token === undefined) throw new Error(`TOKENS.${String(role)} read before signing in: add beforeAll(() => signInAs(${JSON.stringify(role)})) to the test file`);
    return token;
  },
});

const BASE = "http://127.0.0.1:8787";

/** The bindings the Worker is called with: the test's, unless a file gave others (`useBindings`). */
let bindings: Env = env;

/**
 * This file's requests reach the Worker with `overrides` over the test's bindings, from its
 * first test to its last (the files that share a runtime run one after another): a
 * setting the test project does not have, or other limiters under the usual names.
 */
export function useBindings(overrides: Partial<Env>): void {
  beforeAll(() => {
    if (bindings !== env) throw new Error("useBindings: this file gave the Worker other bindings already (one call a file)");
    bindings = { ...env, ...overrides };
  });
  afterAll(() => {
    bindings = env;
  });
}

/**
 * A request answered by the Worker's entry (src/index.ts), called in this
 * isolate with the test's bindings, as the runtime calls it. Not
 * `exports.default.fetch`: in this test runtime (vitest-pool-workers 0.15)
 * each call through it costs more than the one before (10 ms for a file's
 * first, 150 ms by its 800th: the suite spent most of its time there), while
 * the entry's own fetch stays under a millisecond. `given`: bindings of the
 * call's own in place of the file's.
 */
export function workerFetch(request: Request, given: Env = bindings): Promise<Response> {
  return Promise.resolve(worker.fetch(request, given, createExecutionContext()));
}

export function fetchWorker(path: string, init: RequestInit = {}): Promise<Response> {
  return workerFetch(new Request(`${BASE}${path}`, init));
}

/** What /mcp answers (200, parsed) to a body sent exactly as written: for what JSON.stringify cannot spell (-0, 1e999) or a parsed object cannot keep (an own "__proto__" key). */
export async function rawMcp(body: string): Promise<any> {
  const response = await fetchWorker("/mcp", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${await tokenOf("agent")}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body,
  });
  if (response.status !== 200) throw new Error(`/mcp answered ${response.status}: ${await response.text()}`);
  return response.json();
}

/** The 2026-07-28 revision's per-request envelope (SEP-2575): its version and the client's capabilities, in `params._meta`. */
export const MODERN = "2026-07-28";

export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities };
}

/**
 * A 2026-07-28 request as its clients send it: the envelope in `params._meta`,
 * and the MCP-Protocol-Version, Mcp-Method and (for tools/call and resources/read) Mcp-Name headers.
 */
export async function modernRpc(method: string, params: Record<string, unknown> = {}, token?: string | null, capabilities: Record<string, unknown> = {}): Promise<Response> {
  if (token === undefined) token = await tokenOf("agent");
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": method,
  };
  if (method === "tools/call" && typeof params.name === "string") headers["Mcp-Name"] = params.name;
  if (method === "resources/read" && typeof params.uri === "string") headers["Mcp-Name"] = params.uri;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const body = { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: envelope(capabilities) } };
  return fetchWorker("/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

export interface ApiAnswer {
  status: number;
  body: any;
}

/** The person's API (scripts/lib/person-api.ts) through the Worker's own fetch, as `token`'s holder (alice's app token: signed in first). */
export function personApi(token: string = TOKENS.app): PersonApi {
  return new PersonApi({ origin: BASE, token, fetch: workerFetch });
}

/** Any request to the person's API, answered as it came (the body parsed when it is JSON). */
export async function api(method: string, path: string, body?: unknown, token?: string): Promise<ApiAnswer> {
  return personApi(token ?? (await tokenOf("app"))).request(method, path, body);
}

export function uniqueNoteId(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** A fresh Note owned by alice, approved for connectors unless told otherwise. Returns its ID and version. */
export async function newNote(options: { approved?: boolean; title?: string; token?: string } = {}): Promise<{ noteId: string; version: number }> {
  const noteId = uniqueNoteId();
  const client = personApi(options.token ?? (await tokenOf("app")));
  const title = options.title ?? "Test Note";
  if (options.approved !== false) return { noteId, version: await client.createApprovedNote(noteId, title) };
  return { noteId, version: orThrow(await client.createNote({ note_id: noteId, title }), `create Note ${noteId}`).version };
}

let nextId = 1;

export async function rpc(method: string, params: unknown, token?: string | null, headers: Record<string, string> = {}): Promise<Response> {
  if (token === undefined) token = await tokenOf("agent");
  const all: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    ...headers,
  };
  if (token !== null) all.Authorization = `Bearer ${token}`;
  return fetchWorker("/mcp", { method: "POST", headers: all, body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }) });
}

export interface ToolAnswer {
  isError: boolean;
  /** structuredContent on success; the `error` object on failure. */
  data: any;
  raw: any;
}

export async function tool(name: string, args: Record<string, unknown>, token?: string): Promise<ToolAnswer> {
  const response = await rpc("tools/call", { name, arguments: args }, token);
  if (response.status !== 200) throw new Error(`tools/call ${name}: HTTP ${response.status} ${await response.text()}`);
  const message = (await response.json()) as any;
  if (message.error !== undefined) throw new Error(`tools/call ${name}: JSON-RPC error ${JSON.stringify(message.error)}`);
  const result = message.result;
  if (result.isError === true) return { isError: true, data: JSON.parse(result.content[0].text).error, raw: result };
  return { isError: false, data: result.structuredContent, raw: result };
}

/** A tool call that must succeed; its structured result. */
export async function ok(name: string, args: Record<string, unknown>, token?: string): Promise<any> {
  const answer = await tool(name, args, token);
  if (answer.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.data)}`);
  return answer.data;
}

/** A tool call that must fail; its error object. */
export async function failure(name: string, args: Record<string, unknown>, token?: string): Promise<any> {
  const answer = await tool(name, args, token);
  if (!answer.isError) throw new Error(`${name} succeeded: ${JSON.stringify(answer.data)}`);
  return answer.data;
}
