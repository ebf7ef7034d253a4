/**
 * One structured log line per request, for the operator (Workers Logs with
 * `[observability]` on; `wrangler dev` prints it): the route, the outcome and
 * who asked. The root app's middleware opens the request's record and writes
 * it when the answer is ready; the routes fill in what only they know through
 * `noteRequest` (the user and client behind a token, a tool call's name, Note
 * and outcome).
 *
 * Only these fields are ever written: never a header, a query string, a body,
 * a token, a secret, an authorization code or a Note's content.
 *
 * @example
 * app.use("*", logRequests);
 * noteRequest({ user: "alice", client: "AbC123" });
 * noteToolCall({ tool: "create_note_tab", note_id: "demo", outcome: "ok" });
 */
import type { MiddlewareHandler } from "hono";
import { AsyncLocalStorage } from "node:async_hooks";
import { clip } from "../note/index.js";
import type { ToolCallFacts } from "../mcp/server.js";

/** What a route knows about the request beyond its method, path and status. */
interface RequestFacts {
  /** The user the token or the sign-in acts for. */
  user?: string;
  /** The OAuth client ID. */
  client?: string;
}


/** The line as written. */
export interface RequestLine {
  route: string;
  method: string;
  status: number;
  outcome: string;
  duration_ms: number;
  user?: string;
  client?: string;
  tool?: string;
  note_id?: string;
  /** Present instead of `tool` and `note_id` when one request carried several tool calls (a JSON-RPC batch). */
  tool_calls?: ToolCallFacts[];
}

interface Entry extends RequestFacts {
  calls: ToolCallFacts[];
}

const records = new AsyncLocalStorage<Entry>();

/** The root app's middleware: times the request and logs its line once the answer is ready. */
export const logRequests: MiddlewareHandler = async (c, next) => {
  const started = Date.now();
  const record: Entry = { calls: [] };
  await records.run(record, next);
  console.log(requestLine(c.req.method, c.req.path, c.res.status, Date.now() - started, record));
};

/** Adds what a route knows to the request's line (no effect outside a request). */
export function noteRequest(facts: RequestFacts): void {
  const record = records.getStore();
  if (record !== undefined) Object.assign(record, definedOnly(facts));
}

/** Adds a tool call to the request's line. */
export function noteToolCall(call: ToolCallFacts): void {
  records.getStore()?.calls.push(definedOnly(call));
}

function requestLine(method: string, path: string, status: number, durationMs: number, record: Entry): RequestLine {
  const { calls, ...who } = record;
  const line: RequestLine = {
    route: clip(path, 200),
    method,
    status,
    outcome: calls.length === 1 ? (calls[0] as ToolCallFacts).outcome : statusOutcome(status),
    duration_ms: durationMs,
    ...who,
  };
  if (calls.length === 1) Object.assign(line, calls[0]);
  else if (calls.length > 1) line.tool_calls = calls;
  return line;
}

const STATUS_OUTCOMES: Readonly<{ [status: number]: string }> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "too_large",
  421: "misdirected_request",
  429: "rate_limited",
  500: "internal_error",
  501: "not_configured",
  503: "unavailable",
};

/** An outcome from the status: `ok` below 400, else the status's usual name. */
function statusOutcome(status: number): string {
  return status < 400 ? "ok" : (STATUS_OUTCOMES[status] ?? `http_${status}`);
}

function definedOnly<T extends object>(facts: T): T {
  return Object.fromEntries(Object.entries(facts).filter((entry) => entry[1] !== undefined)) as T;
}
