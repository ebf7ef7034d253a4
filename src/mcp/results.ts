/**
 * Tool results: success as `structuredContent` plus the same JSON as text
 * (and, for a write, a link to the Note's page); failures as `isError` results.
 */
import type { CallToolResult, ResourceLink } from "@modelcontextprotocol/server";
import type { NoteError } from "../note/index.js";
import type { FetchedItem, HitIds, HitKind, SearchPage } from "../note/search/contract.js";
import type { FetchAnswer, FoundHit, SearchAnswer } from "./schemas.js";
import { TOOLS } from "./tools.js";

export function successResult(value: unknown, page?: NotePage): CallToolResult {
  const text = { type: "text" as const, text: JSON.stringify(value) };
  return { content: page === undefined ? [text] : [text, pageLink(page)], structuredContent: value as Record<string, unknown> };
}

/** The URL of a Note's page, opened on a tab when given. */
export type PageOf = (noteId: string, tabId?: string) => string;

/** The path of a Note's page on this server, opened on `tabId` (`?tab=`) when given. */
export const notePagePath: PageOf = (noteId, tabId) => `/notes/${encodeURIComponent(noteId)}${tabId === undefined ? "" : `?tab=${encodeURIComponent(tabId)}`}`;

/** The tab of the person's page that shows a hit: its own, or the fixed tab of its kind (none for a Note: its page opens as it would). */
function tabShowing(hit: HitIds & { kind: HitKind }): string | undefined {
  if (hit.tab_id !== undefined) return hit.tab_id;
  return hit.kind === "source" ? "sources" : hit.kind === "file" ? "files" : hit.kind === "markdown" ? "markdown" : undefined;
}

/** A page of hits as `search` and GET /api/v1/search answer it: ChatGPT's `results`, the whole hits with their pages' URLs, and the cursor. */
export function searchAnswer(page: SearchPage, pageOf: PageOf): SearchAnswer {
  const hits: FoundHit[] = page.hits.map((hit) => ({ ...hit, url: pageOf(hit.note_id, tabShowing(hit)) }));
  return { results: hits.map(({ id, title, url }) => ({ id, title, url })), hits, next_cursor: page.next_cursor };
}

/** A fetched item with the URL of the page showing it. */
export function fetchAnswer(item: FetchedItem, pageOf: PageOf): FetchAnswer {
  return { ...item, url: pageOf(item.metadata.note_id, tabShowing(item.metadata)) };
}

/**
 * `search` and `fetch` answer in the shapes ChatGPT's connectors read
 * (docs/spec.md §11): one text content, the JSON `{"results": [{id, title, url}]}`
 * for search and `{id, title, text, url, metadata}` for fetch, exactly those
 * fields; the structured content has the rest (a search's whole hits and its cursor).
 */
export function searchResult(answer: SearchAnswer): CallToolResult {
  const results = answer.results.map(({ id, title, url }) => ({ id, title, url }));
  return { content: [{ type: "text", text: JSON.stringify({ results }) }], structuredContent: answer as unknown as Record<string, unknown> };
}

export function fetchResult(answer: FetchAnswer): CallToolResult {
  const { id, title, text, url, metadata } = answer;
  const document = { id, title, text, url, metadata };
  return { content: [{ type: "text", text: JSON.stringify(document) }], structuredContent: document };
}

/** The person's web page of a Note: where the user opens what an agent just wrote. */
interface NotePage {
  noteId: string;
  url: string;
}

function pageLink({ noteId, url }: NotePage): ResourceLink {
  return { type: "resource_link", uri: url, name: noteId, title: "Open the Note", description: "The Note's page: what this call wrote, live, with who changed what.", mimeType: "text/html" };
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
