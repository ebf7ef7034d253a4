/**
 * POST /mcp: MCP Streamable HTTP, stateless, JSON responses. The OAuth
 * resource server has verified the token; before the SDK sees a message this
 * route checks the Origin, the body's size and JSON, and each tool call's
 * scopes, so those failures are HTTP answers.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { SCOPES } from "../auth/scopes.js";
import { createMcpServer } from "../mcp/server.js";
import { TOOLS_BY_NAME } from "../mcp/tools.js";
import { LIMITS } from "../note/limits.js";
import { insufficientScope, withPrincipal, type AppEnv } from "./auth.js";
import { durableGateway } from "./gateway.js";

/** The MCP resource's routes; the OAuth resource server runs them with a verified token. */
export const mcp = new Hono<AppEnv>().basePath("/mcp");

// A browser page from another origin must not drive a connector (DNS rebinding, CSRF).
mcp.use("*", withPrincipal, async (c, next) => {
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

mcp.post("/", async (c) => {
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

  const server = createMcpServer(c.get("principal"), durableGateway(c.env));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw, { parsedBody: body });
});

function tooLarge(): Response {
  const message = `Request body larger than ${LIMITS.mcpBodyBytes} bytes`;
  return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message } }, { status: 413 });
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

function originAllowed(origin: string, requestUrl: string, allowed: string | undefined): boolean {
  if (origin === new URL(requestUrl).origin) return true;
  return (allowed ?? "")
    .split(",")
    .map((o) => o.trim())
    .includes(origin);
}
