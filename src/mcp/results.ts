/** Tool results: success as `structuredContent` plus the same JSON as text; failures as `isError` results. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { NoteError } from "../note/errors.js";

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
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }] };
}
