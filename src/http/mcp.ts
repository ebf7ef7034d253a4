/**
 * POST /mcp: MCP Streamable HTTP, stateless, JSON responses. The OAuth
 * resource server has verified the token; before the SDK sees a message this
 * route checks the Origin, the body's size and JSON, and each tool call's
 * scopes, so those failures are HTTP answers.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import { SCOPES } from "../auth/scopes.js";
import { createMcpServer, type CallHooks } from "../mcp/server.js";
import { TOOLS_BY_NAME } from "../mcp/tools.js";
import { LIMITS } from "../note/limits.js";
import { settingsOf } from "../settings.js";
import { insufficientScope, withPrincipal, type AppEnv } from "./auth.js";
import { answerError, failWith, limitBody, readJson, type Refuse } from "./edge.js";
import { durableGateway } from "./gateway.js";
import { callerKey, limiterOf } from "./rate-limits.js";
import { noteToolCall } from "./request-log.js";

/** The MCP resource's routes; the OAuth resource server runs them with a verified token. */
export const mcp = new Hono<AppEnv>().basePath("/mcp");

// A browser page from another origin must not drive a connector (DNS rebinding, CSRF).
mcp.use("*", withPrincipal, async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin && !settingsOf(c.env).allowedOrigins.includes(origin)) {
    return rpcError(403, -32000, `Origin ${origin} is not allowed`);
  }
  await next();
});

const unusable: Refuse = (problem, detail) => rpcError(400, -32700, `Parse error: ${detail ?? `request body ${problem}`}`);
const tooLarge = () => rpcError(413, -32600, `Request body larger than ${LIMITS.mcpBodyBytes} bytes`);

mcp.post("/", limitBody(LIMITS.mcpBodyBytes, tooLarge, unusable), async (c) => {
  const body = await readJson(c.req.raw, unusable);
  if (body === undefined) throw failWith(unusable("empty"));
  const invalid = invalidMessage(body);
  if (invalid !== null) return rpcError(400, -32600, `Invalid Request: ${invalid}`);

  const denied = insufficientScope(c, neededScopes(body));
  if (denied !== null) return denied;

  // Tool calls count per user and client, writes and reads apart; a refused call answers with a tool error.
  const principal = c.get("principal");
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

  const server = createMcpServer(principal, durableGateway(c.env), hooks);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const answer = await transport.handleRequest(c.req.raw, { parsedBody: body });
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

/** A JSON-RPC error with no request ID: the message could not be read, or was refused before it was. */
function rpcError(status: 400 | 403 | 404 | 405 | 413, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/**
 * Why a parsed body is not a JSON-RPC 2.0 message (or a batch of them), or
 * null. The SDK's transport would answer these -32700 as if the JSON itself
 * were broken, and an empty batch with an empty 202.
 */
function invalidMessage(body: unknown): string | null {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return "an empty batch";
  for (const message of messages) {
    if (typeof message !== "object" || message === null || Array.isArray(message)) return "expected a JSON-RPC 2.0 message, an object";
    if ((message as { jsonrpc?: unknown }).jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
    if (!JSONRPCMessageSchema.safeParse(message).success) return "not a JSON-RPC 2.0 request, notification or response (check id, method, params and _meta)";
  }
  return null;
}

/** The scopes a message needs: read for anything, and a tool call its tool's too. */
function neededScopes(body: unknown): readonly string[] {
  const needed = new Set<string>([SCOPES.read]);
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    const tool = call?.method === "tools/call" && typeof call.params?.name === "string" ? TOOLS_BY_NAME.get(call.params.name) : undefined;
    for (const scope of tool?.scopes ?? []) needed.add(scope);
  }
  return [...needed];
}
