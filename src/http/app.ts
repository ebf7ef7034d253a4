/**
 * The Worker's HTTP surface: /mcp for agents, /api/v1 for the person's app,
 * and the protected resource metadata clients discover the server by.
 */
import { Hono } from "hono";
import { SERVER_INFO } from "../mcp/server.js";
import { ALL_TOOL_SCOPES } from "../mcp/tools.js";
import { api } from "./api.js";
import type { AppEnv } from "./auth.js";
import { mcp } from "./mcp.js";

export const app = new Hono<AppEnv>();

app.get("/", (c) =>
  c.json({ name: SERVER_INFO.title, version: SERVER_INFO.version, mcp: `${new URL(c.req.url).origin}/mcp`, api: "/api/v1" }),
);

// RFC 9728: where an MCP client learns what this resource is and which scopes it takes.
for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
  app.get(path, (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json({
      resource: `${origin}/mcp`,
      resource_name: SERVER_INFO.title,
      scopes_supported: [...ALL_TOOL_SCOPES],
      bearer_methods_supported: ["header"],
    });
  });
}

app.route("/mcp", mcp);
app.route("/api/v1", api);

app.notFound((c) => c.json({ error: { code: "not_found", message: `No route ${c.req.method} ${new URL(c.req.url).pathname}` } }, 404));

app.onError((error, c) => {
  // Every expected failure is answered before here; reaching this is a bug.
  console.error("unhandled error", error);
  return c.json({ error: { code: "internal_error", message: "Internal error" } }, 500);
});
