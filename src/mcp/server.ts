/**
 * The MCP server, on the official SDK's low-level `Server`: the SDK speaks the
 * protocol (initialize, JSON-RPC, Streamable HTTP); this file answers
 * `tools/list` and `tools/call`. Arguments are validated here, at the edge, so
 * every problem comes back as one `invalid_arguments` result naming each field.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Principal } from "../auth/scopes.js";
import type { Caller, CommandName, Input } from "../note/commands.js";
import { invalidArguments, type Issue, type NoteError } from "../note/errors.js";
import type { Result } from "../note/result.js";
import { errorResult, successResult } from "./results.js";
import { inputs, outputs } from "./schemas.js";
import { TOOLS, TOOLS_BY_NAME, type ToolDefinition } from "./tools.js";

/** Where a tool call goes once its arguments are valid. */
export interface NoteGateway {
  execute<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Result<unknown>>;
  listNotes(user: string): Promise<{ notes: { note_id: string; title: string }[] }>;
}

export const SERVER_INFO = { name: "osfoundry-notes-connector", title: "osFoundry Notes", version: "0.1.0" } as const;

const INSTRUCTIONS =
  "Write into osFoundry Notes. Find a Note with list_notes, then list_note_tabs for its tabs, exact tab IDs and version. " +
  "Every edit names its tab by exact ID, carries expected_version from a fresh list, and an idempotency_key that names the intent: " +
  "resend a lost call unchanged (same key) to get its first result.";

/** The tools/list answer, built once per isolate. */
const TOOL_LIST: Tool[] = TOOLS.map(describe);

function describe(tool: ToolDefinition): Tool {
  const securitySchemes = [{ type: "oauth2", scopes: [...tool.scopes] }];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(inputs[tool.name], "input") as Tool["inputSchema"],
    outputSchema: jsonSchema(outputs[tool.name], "output") as Tool["outputSchema"],
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
 * One JSON Schema validator for every exchange. A Server builds its own by
 * default (a new Ajv, formats and all) on every request; this server never
 * asks clients for input, so it is never used, only paid for.
 */
const VALIDATOR = new AjvJsonSchemaValidator();

/** A fresh server for one stateless exchange. */
export function createMcpServer(principal: Principal, gateway: NoteGateway): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: VALIDATOR });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(principal, gateway, request.params.name, request.params.arguments));
  return server;
}

async function callTool(principal: Principal, gateway: NoteGateway, name: string, args: unknown): Promise<CallToolResult> {
  const tool = TOOLS_BY_NAME.get(name);
  if (tool === undefined) {
    return errorResult(invalidArguments([{ path: "name", problem: `no tool "${name}"; call tools/list for the tools` }]));
  }
  const parsed = inputs[tool.name].safeParse(args ?? {});
  if (!parsed.success) return errorResult(invalidArguments(parsed.error.issues.flatMap(toIssues)));

  if (tool.command === null) return successResult(await gateway.listNotes(principal.user));
  const { note_id, ...input } = parsed.data as { note_id: string } & Record<string, unknown>;
  const caller: Caller = { user: principal.user, channel: "connector" };
  const result = await gateway.execute(note_id, caller, tool.command, input as never);
  return result.ok ? successResult(result.value) : errorResult(result.error as NoteError);
}

/** One zod issue as the `path: problem` lines of an `invalid_arguments` error. */
export function toIssues(issue: z.core.$ZodIssue): Issue[] {
  const path = formatPath(issue.path);
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), problem: "unexpected field" }));
    case "invalid_type":
      return [{ path, problem: issue.input === undefined ? "required" : `expected ${issue.expected}` }];
    case "invalid_value":
      return [{ path, problem: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` }];
    case "too_big":
      return [{ path, problem: `at most ${String(issue.maximum)}${unit(issue.origin)}` }];
    case "too_small":
      return [{ path, problem: issue.origin === "string" && issue.minimum === 1 ? "must not be empty" : `at least ${String(issue.minimum)}${unit(issue.origin)}` }];
    default:
      return [{ path, problem: issue.message }];
  }
}

function unit(origin: string): string {
  if (origin === "string") return " characters";
  if (origin === "array") return " items";
  return "";
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(arguments)" : out;
}
