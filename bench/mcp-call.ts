/**
 * One MCP tool call as the load generator sends it: a JSON-RPC `tools/call`
 * POST to /mcp with the agent's bearer token, and how to tell from the raw
 * body whether it failed at the MCP level (HTTP 200 with `isError: true`, or a
 * JSON-RPC error) or, for a write, did not commit (a replay).
 */

export const MCP_PATH = "/mcp";

export function mcpHeaders(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
}

let nextId = 1;

/** The JSON-RPC body of one `tools/call`. */
export function toolCallBody(tool: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name: tool, arguments: args } });
}

/** A tool result with `isError: true`, or a JSON-RPC error object. */
export function isMcpError(body: string): boolean {
  return body.includes('"isError":true') || body.includes('"error":{"code":-3');
}

/** A write that committed: not an error, and not the replay of an earlier call. */
export function isCommittedWrite(body: string): boolean {
  return !isMcpError(body) && body.includes('"replayed":false');
}

/** The Note's version in a tool result's structuredContent (the text copy has its quotes escaped, so it never matches). */
export function versionIn(body: string): number | null {
  const match = /"version":(\d+)/.exec(body) ?? /\\"current_version\\":(\d+)/.exec(body);
  return match === null ? null : Number(match[1]);
}

/** Calls one tool with fetch and returns its structuredContent (throws on any failure): for setup and cost runs. */
export async function callTool<T = Record<string, unknown>>(origin: string, token: string, tool: string, args: Record<string, unknown>): Promise<T> {
  const send = (): Promise<Response> =>
    fetch(`${origin}${MCP_PATH}`, { method: "POST", headers: mcpHeaders(token), body: toolCallBody(tool, args), signal: AbortSignal.timeout(30_000) });
  // A kept-alive socket the server closed meanwhile resets the next request on it (after a long seeding call): once
  // more on a new one. Safe for writes too: a resent key replays.
  const response = await send().catch((error: unknown) => {
    if (!String((error as Error).cause).includes("ECONNRESET")) throw error;
    return send();
  });
  const text = await response.text();
  if (response.status !== 200 || isMcpError(text)) throw new Error(`${tool} answered HTTP ${response.status}: ${text.slice(0, 500)}`);
  const parsed = JSON.parse(text) as { result?: { structuredContent?: T } };
  if (parsed.result?.structuredContent === undefined) throw new Error(`${tool} answered without structuredContent: ${text.slice(0, 500)}`);
  return parsed.result.structuredContent;
}
