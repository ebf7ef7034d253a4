/**
 * POST /mcp: MCP Streamable HTTP, stateless, JSON responses. Before the SDK
 * sees a message this route checks the Origin, the token, the body's size and
 * JSON, and each tool call's scopes, so those failures are HTTP answers.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { SCOPES } from "../auth/tokens.js";
import { createMcpServer } from "../mcp/server.js";
import { ALL_TOOL_SCOPES, TOOLS_BY_NAME } from "../mcp/tools.js";
import { LIMITS } from "../note/limits.js";
import { insufficientScope, requireToken, type AppEnv } from "./auth.js";
import { durableGateway } from "./gateway.js";

export const mcp = new Hono<AppEnv>();

// A browser page from another origin must not drive a connector (DNS rebinding, CSRF).
mcp.use("*", async (c, next) => {
  const origin = c.req.header("Origin");
  if (origin !== undefined && !originAllowed(origin, c.req.url, c.env.ALLOWED_ORIGINS)) {
    return c.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: `Origin ${origin} is not allowed` } }, 403);
  }
  await next();
});

mcp.on(["GET", "DELETE"], "/", (c) => {
  c.header("Allow", "POST");
  return c.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "This stateless server takes POST only: no SSE stream, no sessions." } }, 405);
});

mcp.post("/", requireToken(ALL_TOOL_SCOPES), async (c) => {
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (declared > LIMITS.mcpBodyBytes) return tooLarge();
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > LIMITS.mcpBodyBytes) return tooLarge();

  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    const detail = error instanceof Error ? error.message : "invalid JSON";
    return c.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `Parse error: ${detail}` } }, 400);
  }

  const denied = insufficientScope(c, neededScopes(body));
  if (denied !== null) return denied;

  const principal = c.get("principal");
  const server = createMcpServer(principal, durableGateway(c.env));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw, {
    parsedBody: body,
    authInfo: { token: "", clientId: principal.user, scopes: [...principal.scopes] },
  });
});

function tooLarge(): Response {
  const message = `Request body larger than ${LIMITS.mcpBodyBytes} bytes`;
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message } }, { status: 413 });
}

/** The scopes a message needs: a tool call needs its tool's; anything else needs read. */
function neededScopes(body: unknown): readonly string[] {
  const needed = new Set<string>();
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = message as { method?: unknown; params?: { name?: unknown } } | null;
    const tool = call?.method === "tools/call" && typeof call.params?.name === "string" ? TOOLS_BY_NAME.get(call.params.name) : undefined;
    for (const scope of tool?.scopes ?? [SCOPES.read]) needed.add(scope);
  }
  return [...needed];
}

function originAllowed(origin: string, requestUrl: string, allowed: string | undefined): boolean {
  if (origin === new URL(requestUrl).origin) return true;
  return (allowed ?? "")
    .split(",")
    .map((o) => o.trim())
    .includes(origin);
}
