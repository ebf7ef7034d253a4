/** Helpers for tests that run inside workerd: the person's API and raw MCP calls, through the Worker's own fetch. */
import { exports } from "cloudflare:workers";
import { PersonApi, orThrow } from "../../scripts/lib/person-api.js";
import { signIn } from "../../scripts/lib/sign-in.js";

/** Tokens of the local users, one per role, signed in through the real OAuth flow (see setup-tokens.ts). */
export const TOKENS = { agent: "", reader: "", app: "", bobAgent: "", bobApp: "" };

const ROLES: Record<keyof typeof TOKENS, { user: string; scopes: string[]; resource: "mcp" | "api" }> = {
  agent: { user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" },
  reader: { user: "alice", scopes: ["osfoundry:read"], resource: "mcp" },
  app: { user: "alice", scopes: ["osfoundry:app"], resource: "api" },
  bobAgent: { user: "bob", scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" },
  bobApp: { user: "bob", scopes: ["osfoundry:app"], resource: "api" },
};

/** Signs every role in, unless this test file already did. */
export async function signInEveryone(): Promise<void> {
  if (TOKENS.agent !== "") return;
  for (const [role, how] of Object.entries(ROLES)) {
    const tokens = await signIn({ origin: BASE, ...how, fetch: (request) => exports.default.fetch(request) });
    TOKENS[role as keyof typeof TOKENS] = tokens.access_token;
  }
}

const BASE = "http://127.0.0.1:8787";

export function fetchWorker(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

/** What /mcp answers (200, parsed) to a body sent exactly as written: for what JSON.stringify cannot spell (-0, 1e999) or a parsed object cannot keep (an own "__proto__" key). */
export async function rawMcp(body: string): Promise<any> {
  const response = await fetchWorker("/mcp", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TOKENS.agent}`,
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
export async function modernRpc(method: string, params: Record<string, unknown> = {}, token: string | null = TOKENS.agent, capabilities: Record<string, unknown> = {}): Promise<Response> {
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

/** The person's API (scripts/lib/person-api.ts) through the Worker's own fetch, as `token`'s holder. */
export function personApi(token: string = TOKENS.app): PersonApi {
  return new PersonApi({ origin: BASE, token, fetch: (request) => exports.default.fetch(request) });
}

/** Any request to the person's API, answered as it came (the body parsed when it is JSON). */
export async function api(method: string, path: string, body?: unknown, token: string = TOKENS.app): Promise<ApiAnswer> {
  return personApi(token).request(method, path, body);
}

export function uniqueNoteId(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/** A fresh Note owned by alice, approved for connectors unless told otherwise. Returns its ID and version. */
export async function newNote(options: { approved?: boolean; title?: string; token?: string } = {}): Promise<{ noteId: string; version: number }> {
  const noteId = uniqueNoteId();
  const client = personApi(options.token);
  const title = options.title ?? "Test Note";
  if (options.approved !== false) return { noteId, version: await client.createApprovedNote(noteId, title) };
  return { noteId, version: orThrow(await client.createNote({ note_id: noteId, title }), `create Note ${noteId}`).version };
}

let nextId = 1;

export async function rpc(method: string, params: unknown, token: string | null = TOKENS.agent, headers: Record<string, string> = {}): Promise<Response> {
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

export async function tool(name: string, args: Record<string, unknown>, token: string = TOKENS.agent): Promise<ToolAnswer> {
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
