/** Tool results: success as `structuredContent` plus the same JSON as text; failures as `isError` results. */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { NoteError } from "../note/errors.js";
import { TOOLS } from "./tools.js";

export function successResult(value: unknown): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * A failure the model can act on: `{error: {code, message, ...details}}`.
 * It travels as JSON text only: clients check any `structuredContent`
 * against the tool's output schema, which describes success.
 */
export function errorResult(error: NoteError): CallToolResult {
  // The Note names its operations; an agent knows them by their tools' names.
  const told = error.code === "idempotency_key_reused" ? { ...error, first_used_by: toolOf(error.first_used_by) } : error;
  return failure(told);
}

/** A call its client's rate limit refused (src/http/rate-limits.ts), before anything was read or written. */
export function rateLimitedResult(kind: "write" | "read", retryAfterSeconds: number): CallToolResult {
  const message =
    `Too many ${kind} calls from this client: this call was not run and changed nothing. ` +
    `Wait ${retryAfterSeconds} seconds, then send it again${kind === "write" ? " unchanged (same idempotency_key)" : ""}.`;
  return failure({ code: "rate_limited", message, retry_after_seconds: retryAfterSeconds });
}

function failure(error: { code: string; message: string; [detail: string]: unknown }): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }] };
}

function toolOf(command: string): string {
  return TOOLS.find((tool) => tool.command === command)?.name ?? command;
}
