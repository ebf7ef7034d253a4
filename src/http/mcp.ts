/**
 * POST /mcp: MCP Streamable HTTP, stateless, JSON answers, both revisions:
 * 2026-07-28 (each request carries its version and capabilities) through the
 * SDK's `createMcpHandler`, and 2025-11-25 (initialize, then plain requests)
 * through its Streamable HTTP transport, from one server factory.
 *
 * With a token the OAuth resource server has verified it. Without one only
 * discovery is served (initialize, server/discover, ping, tools/list, and the
 * resources: the deck preview's page, the same for everyone), per
 * client address rate limited; anything else gets the resource server's 401
 * challenge, so a client signs in exactly when it first needs to. Before the
 * SDK sees a message this route checks the Origin, the body's size and JSON,
 * and each tool call's scopes, so those failures are HTTP answers.
 */
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import {
  createMcpHandler,
  isLegacyRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { Hono } from "hono";
import type { ResourceContext } from "../auth/oauth.js";
import { SCOPES, type Principal } from "../auth/scopes.js";
import type { Env } from "../env.js";
import { notePagePath } from "../mcp/results.js";
import { createMcpServer, type CallHooks, type McpExchange } from "../mcp/server.js";
import { TOOLS_BY_NAME } from "../mcp/tools.js";
import { clip, LIMITS } from "../note/index.js";
import { settingsOf } from "../settings.js";
import { insufficientScope, principalOf } from "./auth.js";
import { answerError, failWith, isJson, limitBody, readJson, type Refuse } from "./edge.js";
import { durableGateway } from "./gateway.js";
import { addressKey, callerKey, limiterOf } from "./rate-limits.js";
import { noteToolCall } from "./request-log.js";

/** What the Worker lends a request that carries no token: the MCP resource server's own 401 challenge. */
export interface PublicContext extends ExecutionContext {
  challenge(): Promise<Response>;
}

type McpEnv = { Bindings: Env; Variables: { principal: Principal | null } };

/** The MCP resource's routes: with a verified token (a ResourceContext) or, for discovery, none (a PublicContext). */
export const mcp = new Hono<McpEnv>().basePath("/mcp");

mcp.use("*", async (c, next) => {
  const ctx = c.executionCtx as ResourceContext | PublicContext;
  c.set("principal", "challenge" in ctx ? null : principalOf(ctx));
  // A browser page from another origin must not drive a connector (DNS rebinding, CSRF).
  const origin = c.req.header("Origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin && !settingsOf(c.env).allowedOrigins.includes(origin)) {
    return rpcError(403, -32000, `Origin ${origin} is not allowed`);
  }
  await next();
});

const unusable: Refuse = (problem, detail) => rpcError(400, -32700, `Parse error: ${detail ?? `request body ${problem}`}`);
const tooLarge = () => rpcError(413, -32600, `Request body larger than ${LIMITS.mcpBodyBytes} bytes`);

mcp.post("/", limitBody(LIMITS.mcpBodyBytes, tooLarge, unusable), async (c) => {
  // The media type before the body, in the SDK's words: a text/plain body is 415 whatever it holds (not −32700 when it is also broken).
  if (!isJson(c.req.header("Content-Type") ?? null)) return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  const body = await readJson(c.req.raw, unusable);
  if (body === undefined) throw failWith(unusable("empty"));
  const invalid = invalidMessage(body, c.req.header("MCP-Protocol-Version"));
  if (invalid !== null) return rpcError(400, -32600, `Invalid Request: ${invalid}`, idOf(body));

  const principal = c.get("principal");
  if (principal === null) {
    if (!isDiscovery(body)) return (c.executionCtx as PublicContext).challenge();
    // One request, one count: a batch would have the limit pay for a hundred answers at once.
    if (Array.isArray(body)) return rpcError(400, -32600, "Invalid Request: a batch needs a token; without one, send one message per request.");
    const wait = await limiterOf(c.env, "PUBLIC_MCP_LIMIT")(addressKey(c.req.raw));
    if (wait !== null) {
      const refused = rpcError(429, -32000, `Too many requests without a token from this address. Try again in ${wait} seconds, or sign in.`, idOf(body));
      refused.headers.set("Retry-After", String(wait));
      return refused;
    }
    return serve(c.req.raw, body, { principal: null, gateway: durableGateway(c.env) });
  }

  const denied = insufficientScope(c, principal, neededScopes(body));
  if (denied !== null) return denied;

  // Tool calls count per user and client, writes and reads apart; a refused call answers with a tool error.
  const key = callerKey(principal.user, principal.client);
  const limits = { write: limiterOf(c.env, "TOOL_WRITE_LIMIT"), read: limiterOf(c.env, "TOOL_READ_LIMIT") };
  let retryAfter: number | null = null;
  const hooks: CallHooks = {
    async admit(tool) {
      const wait = await limits[tool.readOnly ? "read" : "write"](key);
      retryAfter = wait ?? retryAfter;
      return wait;
    },
    called: noteToolCall,
  };
  const origin = new URL(c.req.url).origin;
  const notePage = (noteId: string, tabId?: string) => `${origin}${notePagePath(noteId, tabId)}`;
  const answer = await serve(c.req.raw, body, { principal, gateway: durableGateway(c.env), hooks, notePage });
  // The JSON-RPC answer is a 200 an MCP client hands to the model; Retry-After tells the client too.
  if (retryAfter !== null) answer.headers.set("Retry-After", String(retryAfter));
  return answer;
});

// Registered after POST, so it answers every other method (GET for an SSE stream, DELETE for a session, PUT, …).
mcp.all("/", () => {
  const refused = rpcError(405, -32000, "This stateless server takes POST only: no SSE stream, no sessions.");
  refused.headers.set("Allow", "POST");
  return refused;
});

mcp.notFound((c) => rpcError(404, -32000, `No such endpoint: ${c.req.method} ${c.req.path}. The MCP endpoint is POST /mcp.`));

mcp.onError(answerError);

/**
 * The 2026-07-28 revision's handler, one per isolate. Its factory gets each
 * request's exchange through `authInfo`, the SDK's pass-through for who a
 * request is for (it calls the factory once per request; nothing of one
 * request's is kept for another). Its answers are JSON: this server sends
 * nothing before a result.
 */
const modern = createMcpHandler(({ authInfo }) => createMcpServer(exchangeOf(authInfo)), {
  legacy: "reject",
  // What it answers a client is the client's business; what fails inside is ours to see.
  onerror: (error) => {
    if (!/^(Rejected inbound request|Unsupported protocol version)/.test(error.message)) console.error("mcp handler error", error);
  },
});

function exchangeOf(authInfo: AuthInfo | undefined): McpExchange {
  const exchange = authInfo?.extra?.exchange as McpExchange | undefined;
  if (exchange === undefined) throw new Error("the 2026-07-28 handler was called without the request's exchange (serve() passes it in authInfo.extra)");
  return exchange;
}

/** Answers one parsed JSON-RPC body in the revision it is written in. */
async function serve(request: Request, body: unknown, exchange: McpExchange): Promise<Response> {
  if (await isLegacyRequest(request, body)) {
    // The SDK's answer to a revision it does not know lists only the 2025 ones, as if 2026-07-28 were not served.
    // (initialize negotiates in its params; the SDK reads no header on it, nor does this.)
    const revision = request.headers.get("MCP-Protocol-Version");
    const initializes = messagesOf(body).some((message) => isObject(message) && (message as { method?: unknown }).method === "initialize");
    if (revision !== null && !initializes && !SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) {
      const known = [MODERN_REVISION, ...SUPPORTED_PROTOCOL_VERSIONS].join(", ");
      return rpcError(400, -32000, `Bad Request: Unsupported protocol version: ${clip(revision, 40)} (supported versions: ${known}; ${MODERN_REVISION} with its _meta envelope in every request)`, idOf(body));
    }
    // 2026-07-28's discovery sent without that revision's headers and envelope: the SDK's bare "Method not found" says not why.
    if (isObject(body) && (body as { method?: unknown }).method === "server/discover" && "id" in (body as object)) {
      const message = `Method not found: server/discover is ${MODERN_REVISION}'s: send it with the MCP-Protocol-Version: ${MODERN_REVISION} and Mcp-Method headers and params._meta's protocolVersion and clientCapabilities (or initialize, for 2025-11-25)`;
      return Response.json({ jsonrpc: "2.0", id: idOf(body), error: { code: -32601, message } });
    }
    const server = createMcpServer(exchange);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }
  const authInfo: AuthInfo = { token: "", clientId: exchange.principal?.client ?? "", scopes: [...(exchange.principal?.scopes ?? [])], extra: { exchange } };
  return modern.fetch(request, { parsedBody: body, authInfo });
}

/** A JSON-RPC error the route answers itself: with the request's ID when it could be read, else none. */
function rpcError(status: 400 | 403 | 404 | 405 | 413 | 415 | 429, code: number, message: string, id: string | number | null = null): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });
}

/**
 * Why a parsed body is not a JSON-RPC 2.0 message (or a batch of them), or
 * null. The SDK's transport would answer these -32700 as if the JSON itself
 * were broken, and an empty batch with an empty 202. MCP 2025-06-18 removed
 * batches: a request that names that revision or a later one in its
 * MCP-Protocol-Version header sends one message; an older client (2025-03-26,
 * which sends no header on initialize) may still batch.
 */
function invalidMessage(body: unknown, revision: string | undefined): string | null {
  const messages = messagesOf(body);
  if (messages.length === 0) return "an empty batch";
  if (depthOver(body, MAX_DEPTH)) return `the body nests deeper than ${MAX_DEPTH} levels of arrays and objects`;
  // A header that names no revision (a date) is left to the SDK, which calls it unsupported.
  if (Array.isArray(body) && revision !== undefined && REVISION.test(revision) && revision >= BATCHES_REMOVED) {
    return `a batch, which MCP ${BATCHES_REMOVED} removed: send one JSON-RPC message per request (MCP-Protocol-Version: ${revision})`;
  }
  for (const message of messages) {
    const problem = messageProblem(message);
    if (problem !== null) return Array.isArray(body) ? `batch item ${messages.indexOf(message)}: ${problem}` : problem;
  }
  return null;
}

/**
 * What is wrong with one message, naming the member: the SDK's schema only
 * says that something is. Each message's shape is checked once, here: a
 * request (the message of every call) by hand, member by member, to what
 * the SDK's JSON-RPC request schema requires; a notification or a response
 * against the SDK's JSON-RPC schema. A request's params are its method's, and
 * the server checks them (src/mcp/server.ts).
 */
function messageProblem(message: unknown): string | null {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return "expected a JSON-RPC 2.0 message, an object";
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if ("id" in message && !isId(id)) return "id: expected a string or an integer";
  if ("method" in message) {
    if (typeof method !== "string") return "method: expected string";
    if (params !== undefined && !isObject(params)) return "params: expected object";
    const meta = (params as { _meta?: unknown } | undefined)?._meta;
    if (meta !== undefined && !isObject(meta)) return "params._meta: expected object";
    if ("id" in message) return requestProblem(message, meta as Record<string, unknown> | undefined);
  } else if ("result" in message === "error" in message) {
    return "expected method (a request or notification), or one of result and error (a response)";
  }
  if (!JSONRPCMessageSchema.safeParse(message).success) return "not a JSON-RPC 2.0 request, notification or response (check id, method, params and _meta)";
  return null;
}

/** The SDK's JSON-RPC request schema past the members checked above: no other member, and the two keys of `_meta` it types. */
function requestProblem(request: object, meta: Record<string, unknown> | undefined): string | null {
  for (const member in request) if (!REQUEST_MEMBERS.has(member)) return `${JSON.stringify(member)}: not a member of a JSON-RPC request`;
  if (meta === undefined) return null;
  const token = meta.progressToken;
  if (token !== undefined && !isId(token)) return "params._meta.progressToken: expected a string or an integer";
  const task = meta[RELATED_TASK];
  if (task !== undefined && (!isObject(task) || typeof (task as { taskId?: unknown }).taskId !== "string")) return `params._meta["${RELATED_TASK}"].taskId: expected string`;
  return null;
}

const REQUEST_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The messages of a body: a batch's, or the one. */
const messagesOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : [body]);

const isObject = (value: unknown): boolean => typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string | number => typeof value === "string" || Number.isSafeInteger(value);

/** The request's ID, when the body is one message with a valid one: an error about it names it. */
function idOf(body: unknown): string | number | null {
  const id = isObject(body) ? (body as { id?: unknown }).id : undefined;
  return isId(id) ? id : null;
}

/**
 * The deepest nesting a message needs is a handful of levels (a Sheet's cells in
 * a tool's arguments, a client's capabilities). Past this, schema validation
 * recurses once a level, and a few thousand levels exhaust the stack.
 */
const MAX_DEPTH = 64;

function depthOver(value: unknown, max: number, depth = 0): boolean {
  if (depth > max) return true;
  if (typeof value !== "object" || value === null) return false;
  for (const item of Object.values(value)) if (depthOver(item, max, depth + 1)) return true;
  return false;
}

/** A protocol revision as MCP names them (a date); anything else is for the SDK to call unsupported. */
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

const BATCHES_REMOVED = "2025-06-18";

/** The revision served with a per-request envelope (createMcpHandler); the SDK's SUPPORTED_PROTOCOL_VERSIONS are the 2025 transport's. */
const MODERN_REVISION = "2026-07-28";

/** Requests anyone may send without a token: they tell what this server is and offers, nothing about a Note or a user. */
const DISCOVERY = new Set(["initialize", "server/discover", "ping", "tools/list", "resources/list", "resources/read"]);

/** Whether every message of a body is discovery (requests above; notifications and responses carry nothing to guard). */
function isDiscovery(body: unknown): boolean {
  return (messagesOf(body) as { id?: unknown; method?: unknown }[]).every((message) => {
    const isRequest = typeof message.method === "string" && message.id !== undefined;
    return !isRequest || DISCOVERY.has(message.method as string);
  });
}

/** The scopes a message needs: read for anything, and a tool call its tool's too. */
function neededScopes(body: unknown): readonly string[] {
  const needed = new Set<string>([SCOPES.read]);
  for (const message of messagesOf(body)) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    const tool = call?.method === "tools/call" && typeof call.params?.name === "string" ? TOOLS_BY_NAME.get(call.params.name) : undefined;
    for (const scope of tool?.scopes ?? []) needed.add(scope);
  }
  return [...needed];
}
