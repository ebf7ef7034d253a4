/**
 * The MCP server, on the official SDK's low-level `Server` (v2): the SDK speaks
 * the protocol (both revisions, JSON-RPC, Streamable HTTP); this file answers
 * `tools/list` and `tools/call`, and the deck preview's `resources/list` and
 * `resources/read`. A client's malformed request or unknown tool
 * is a JSON-RPC error (-32602); its arguments are validated here, at the edge,
 * so every problem comes back as one `invalid_arguments` result naming each field.
 */
import {
  CallToolRequestSchema,
  DiscoverRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/core";
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type JSONRPCRequest,
  type StandardSchemaV1,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Principal } from "../auth/scopes.js";
import { clip, type Caller, type CommandName, type Input, type Issue, type NoteError, type Result } from "../note/index.js";
import { noteId, parseArguments, toIssues } from "../edge/fields.js";
import { announcesUi, DECK_PREVIEW_TOOLS, deckPreviewResource, readDeckPreview, toolUiMeta, UI_EXTENSION_ID } from "./deck-preview.js";
import type { FetchedItem, SearchPage } from "../note/search/contract.js";
import { errorResult, fetchAnswer, fetchResult, notePagePath, type PageOf, rateLimitedResult, searchAnswer, searchResult, successResult } from "./results.js";
import { inputs, outputSchemas, type NoteList } from "./schemas.js";
import { TOOLS, TOOLS_BY_NAME, type ToolDefinition } from "./tools.js";

/** A list_notes query, valid by its schema (the cursor is checked where it is decoded). */
export interface NoteQuery {
  title_contains?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A search, valid by its schema (the cursor is checked where it is decoded). */
export interface SearchQuery {
  query: string;
  note_id?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** Where a tool call goes once its arguments are valid. */
export interface NoteGateway {
  execute<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Result<unknown>>;
  /** A page of the user's approved Notes, or invalid_arguments for a cursor not issued to them. */
  listNotes(user: string, query: NoteQuery): Promise<Result<NoteList>>;
  /** A page of hits, best first: across the caller's Notes, or in the one `note_id` names (docs/search.md). */
  search(caller: Caller, query: SearchQuery): Promise<Result<SearchPage>>;
  /** One hit's whole text, from the Note its ID names (that Note checks the caller may use it). */
  fetch(caller: Caller, id: string): Promise<Result<FetchedItem>>;
}

/**
 * What the HTTP route lends a server for each tool call: its rate limit, and
 * where the call's outcome goes (the request's log line).
 */
export interface CallHooks {
  /** Null to run the call; else the seconds to wait. Asked before the arguments are read and anything is touched. */
  admit(tool: ToolDefinition): Promise<number | null>;
  /** The call's tool, the Note it names (when valid) and its outcome. */
  called(call: ToolCallFacts): void;
}

/** One tool call, as the request's log line tells it. */
export interface ToolCallFacts {
  tool: string;
  /** The Note the call names, when its `note_id` is a valid Note ID (even if other arguments are not). */
  note_id?: string;
  /** `ok`, the error code of the tool's error result, `rate_limited`, `unknown_tool` or `internal_error`. */
  outcome: string;
}

const NO_HOOKS: CallHooks = { admit: async () => null, called: () => undefined };

export const SERVER_INFO = { name: "osfoundry-notes-connector", title: "osFoundry Notes", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Write into osFoundry Notes. Find what you need with search (words in; hits out, each with the exact IDs to edit it; fetch a hit's id for its whole text), " +
  "or a Note with list_notes, then list_note_tabs for its tabs, exact tab IDs and version. " +
  "Every edit names its tab by exact ID, carries expected_version from a fresh list, and an idempotency_key that names the intent: " +
  "resend a lost call unchanged (same key) to get its first result.";

/**
 * The tools/list answers, as they are and declaring the deck preview (MCP
 * Apps): built at an isolate's first tools/list, not at its start (their JSON
 * Schemas cost milliseconds, and most isolates only ever serve tool calls).
 */
function toolLists(): ToolLists {
  return (builtLists ??= buildToolLists());
}

interface ToolLists {
  plain: Tool[];
  withUi: Tool[];
}
let builtLists: ToolLists | undefined;

function buildToolLists(): ToolLists {
  const plain = TOOLS.map(describe);
  return { plain, withUi: plain.map((tool) => (DECK_PREVIEW_TOOLS.has(tool.name) ? { ...tool, _meta: { ...tool._meta, ...toolUiMeta } } : tool)) };
}

/**
 * Whether to declare the deck preview to this request's client. A 2026-07-28
 * request says in its envelope whether its client renders MCP Apps. A
 * 2025-11-25 request cannot: its client said so in an initialize this
 * stateless server never sees again, so the preview is declared, as MCP Apps
 * servers do; a client without MCP Apps ignores the key, and no result changes.
 */
function declaresUi(envelope: Record<string, unknown> | undefined): boolean {
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] === undefined || announcesUi(envelope[CLIENT_CAPABILITIES_META_KEY]);
}

function describe(tool: ToolDefinition): Tool {
  const securitySchemes = [{ type: "oauth2", scopes: [...tool.scopes] }];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(inputs[tool.name], "input") as Tool["inputSchema"],
    outputSchema: jsonSchema(outputSchemas()[tool.name], "output") as Tool["outputSchema"],
    annotations: tool.readOnly
      ? { title: tool.title, readOnlyHint: true, openWorldHint: false }
      : { title: tool.title, readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    securitySchemes,
    _meta: { securitySchemes },
  } as Tool;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io });
  return rest;
}

/**
 * tools/call's params exactly as the client sent them, `arguments` too: the
 * SDK's own schema copies them as a record, and that copy drops an own
 * `__proto__` key, so a closed input schema would never see it to refuse it.
 * No check of its own: the params were checked once, in front of the SDK's
 * dispatch (ConnectorServer), and the arguments are checked once, by the tool's schema.
 */
const ToolCallAsSent: StandardSchemaV1<ToolCallParams, ToolCallParams> = {
  "~standard": { version: 1, vendor: "notes-connector", validate: (value) => ({ value: value as ToolCallParams }) },
};

interface ToolCallParams {
  name: string;
  arguments?: unknown;
}

/** What one exchange's server serves to: the caller (null before sign-in: discovery only), where calls go, and the call's hooks. */
export interface McpExchange {
  principal: Principal | null;
  gateway: NoteGateway;
  hooks?: CallHooks;
  /** The URL of a Note's page (opened on `tabId` when given), which a write's result links to (none given, no link) and a hit names (none given, its path). */
  notePage?: PageOf;
}

/** Tools, the preview's resource, and MCP Apps (the extension is negotiated by both sides' capabilities). */
const CAPABILITIES = { tools: {}, resources: {}, extensions: { [UI_EXTENSION_ID]: {} } };

/** A fresh server for one stateless exchange, of either revision. */
export function createMcpServer({ principal, gateway, hooks = NO_HOOKS, notePage }: McpExchange): Server {
  const server = new ConnectorServer(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS });
  server.setRequestHandler("tools/list", (_request, ctx) => ({ tools: toolLists()[declaresUi(ctx.mcpReq.envelope) ? "withUi" : "plain"] }));
  server.setRequestHandler("resources/list", () => ({ resources: [deckPreviewResource] }));
  server.setRequestHandler("resources/read", (request) => {
    const read = readDeckPreview(request.params.uri);
    if (read === null) throw new ResourceNotFoundError(request.params.uri);
    return read;
  });
  server.setRequestHandler("tools/call", { params: ToolCallAsSent }, (params) => {
    // The HTTP route answers a call without a token with a 401 challenge before it gets here.
    if (principal === null) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "tools/call needs a token: sign in with OAuth first.");
    return callTool({ principal, gateway, hooks, notePage }, params.name, params.arguments);
  });
  return server;
}

/**
 * The SDK's Server with a check of each request's params in front of its
 * dispatch, so a client's malformed params are -32602 Invalid params naming
 * each problem in one line (the SDK's own answer is a JSON dump of zod issues).
 */
class ConnectorServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const dispatch = transport.onmessage;
    transport.onmessage = (message, extra) => {
      // The HTTP edge checked each message's shape (src/http/mcp.ts): a request is one with a method and an ID.
      const problem = isRequest(message) ? paramsProblem(message) : null;
      if (problem === null) return dispatch?.(message, extra);
      transport
        .send({ jsonrpc: "2.0", id: (message as JSONRPCRequest).id, error: { code: ProtocolErrorCode.InvalidParams, message: problem } })
        .catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
    };
  }
}

const isRequest = (message: object): message is JSONRPCRequest => "method" in message && "id" in message;

/**
 * The SDK's schema of each request this server answers (the others are -32601
 * Method not found): the params, checked once here (the HTTP edge checked the
 * message's JSON-RPC members).
 */
const REQUEST_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ["initialize", InitializeRequestSchema],
  ["server/discover", DiscoverRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
  ["resources/list", ListResourcesRequestSchema],
  ["resources/read", ReadResourceRequestSchema],
]);

/** What is wrong with a request's params, as one line, or null when the SDK can take them. */
function paramsProblem(request: JSONRPCRequest): string | null {
  const schema = REQUEST_SCHEMAS.get(request.method);
  const parsed = schema?.safeParse(request, { reportInput: true });
  if (parsed === undefined || parsed.success) return null;
  const problems = parsed.error.issues.flatMap(toIssues).map((issue) => `${issue.path}: ${issue.problem}`);
  return `Invalid params for ${request.method}: ${problems.join("; ")}`;
}

/** The signed-in user as their connector: the caller of every tool. */
function connectorOf(principal: Principal): Caller {
  const caller: Caller = { user: principal.user, channel: "connector" };
  if (principal.client !== undefined) caller.client = { id: principal.client, name: principal.clientName ?? null };
  return caller;
}

/** Runs a tool's operation on the Note its arguments name, as the user's connector. */
function onNote(gateway: NoteGateway, principal: Principal, command: CommandName, args: unknown): Promise<Result<unknown>> {
  const { note_id, ...input } = args as { note_id: string } & Record<string, unknown>;
  return gateway.execute(note_id, connectorOf(principal), command, input as never);
}

/** A tool run by the gateway rather than by one Note's operation: list_notes, search, fetch. Answers the tool's result, or the error. */
async function onGateway(gateway: NoteGateway, principal: Principal, name: string, args: unknown, pageOf: PageOf): Promise<Result<CallToolResult>> {
  switch (name) {
    case "search": {
      const page = await gateway.search(connectorOf(principal), args as SearchQuery);
      return page.ok ? { ok: true, value: searchResult(searchAnswer(page.value, pageOf)) } : page;
    }
    case "fetch": {
      const item = await gateway.fetch(connectorOf(principal), (args as { id: string }).id);
      return item.ok ? { ok: true, value: fetchResult(fetchAnswer(item.value, pageOf)) } : item;
    }
    default: {
      const list = await gateway.listNotes(principal.user, args as NoteQuery);
      return list.ok ? { ok: true, value: successResult(list.value) } : list;
    }
  }
}

/** An exchange with a signed-in caller. */
type SignedIn = McpExchange & { principal: Principal; hooks: CallHooks };

async function callTool({ principal, gateway, hooks, notePage }: SignedIn, name: string, args: unknown): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (tool === undefined) {
    hooks.called({ tool: "(unknown)", outcome: "unknown_tool" });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(clip(name))}. Call tools/list for the tools.`);
  }
  const told = (outcome: string, note_id: string | undefined): void => hooks.called({ tool: tool.name, note_id, outcome });
  const wait = await hooks.admit(tool);
  if (wait !== null) {
    // Arguments not read: the log names the Note only if its ID is one (this once, as the call is not run).
    const given = (args as { note_id?: unknown } | null | undefined)?.note_id;
    told("rate_limited", noteId.safeParse(given).success ? (given as string) : undefined);
    return rateLimitedResult(tool.readOnly ? "read" : "write", wait);
  }
  const parsed = parseArguments(inputs[tool.name], args ?? {});
  if (!parsed.ok) {
    told(parsed.error.code, validNoteId(args, parsed.error));
    return errorResult(parsed.error);
  }
  // The Note named, valid by the schema: list_notes names none, search may, fetch names it first in the hit's ID.
  const named = noteNamed(tool.name, parsed.value);
  try {
    if (tool.command === null) {
      const answer = await onGateway(gateway, principal, tool.name, parsed.value, notePage ?? notePagePath);
      told(answer.ok ? "ok" : (answer.error as NoteError).code, named);
      return answer.ok ? answer.value : errorResult(answer.error as NoteError);
    }
    const result = await onNote(gateway, principal, tool.command, parsed.value);
    told(result.ok ? "ok" : (result.error as NoteError).code, named);
    if (!result.ok) return errorResult(result.error as NoteError);
    // A write links to the page where the user sees it, opened on the tab it wrote (a source: the Sources tab).
    const written = tool.readOnly ? undefined : named;
    return successResult(result.value, written !== undefined && notePage !== undefined ? { noteId: written, url: notePage(written, tabWritten(result.value)) } : undefined);
  } catch (error) {
    told("internal_error", named);
    throw error;
  }
}

/** The Note valid arguments name: their note_id, or for fetch the first part of the hit's ID. */
function noteNamed(tool: string, args: unknown): string | undefined {
  if (tool === "fetch") return (args as { id: string }).id.split("/")[0];
  return (args as { note_id?: string }).note_id;
}

/** The tab a write's result concerns: its `tab_id`, or the Sources tab for a source; none for a write on the whole Note. */
function tabWritten(value: unknown): string | undefined {
  const result = value as { tab_id?: unknown; source_id?: unknown } | null;
  if (typeof result?.tab_id === "string") return result.tab_id;
  return result?.source_id === undefined ? undefined : "sources";
}

/** The arguments' note_id when the schema found nothing wrong with it (other fields may be wrong). */
function validNoteId(args: unknown, error: NoteError): string | undefined {
  const given = (args as { note_id?: unknown } | null | undefined)?.note_id;
  if (typeof given !== "string" || error.code !== "invalid_arguments") return undefined;
  return error.issues.some((issue: Issue) => issue.path === "note_id" || issue.path === "(arguments)") ? undefined : given;
}
