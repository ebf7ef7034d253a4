/**
 * What an experiment's unit does, written once for both modes: a generator
 * that yields each step (an agent's MCP tool call, or the person's action in
 * the app) and receives the answer. In process, a `World` answers from the
 * domain (sim/in-process.ts); with `--live`, the official MCP client and the
 * person's API answer over HTTP (sim/live.ts). The script makes every random
 * draw itself, in the same order in both modes, so both see the same events.
 */
import type { z } from "zod";
import type { inputs } from "../src/mcp/schemas.js";
import type { AddedSource, AttachmentPage, CreatedTab, EditedTab, TabContent, TabList } from "../src/note/commands.js";

/** The agent's tools the experiments call. */
export type AgentTool = "list_note_tabs" | "read_note_tab" | "create_note_tab" | "edit_note_tab" | "add_note_source" | "list_note_attachments";

/** A tool's arguments, exactly as its input schema takes them. */
export type ToolArgs<N extends AgentTool> = z.input<(typeof inputs)[N]>;

/** A tool's successful result: its `structuredContent`, the domain's output. */
export interface ToolOutputs {
  list_note_tabs: TabList;
  read_note_tab: TabContent;
  create_note_tab: CreatedTab;
  edit_note_tab: EditedTab;
  add_note_source: AddedSource;
  list_note_attachments: AttachmentPage;
}

/** A tool's failure, as the `{error}` of its `isError` result. */
export interface ToolError {
  code: string;
  message: string;
  [detail: string]: unknown;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; error: ToolError };

/** What the person does in the app (the person's API, docs/spec.md §7). */
export type PersonAction =
  | { op: "create_note"; note_id: string; title: string }
  | { op: "approve"; note_id: string }
  /** A save somewhere in the Note: the Markdown text, which no experiment reads. */
  | { op: "save_markdown"; note_id: string; text: string }
  /** The person renames a tab (experiment 6: the agent's deck). */
  | { op: "rename_tab"; note_id: string; tab_id: string; label: string };

export type Step =
  | { kind: "agent"; tool: AgentTool; args: Record<string, unknown> }
  | { kind: "person"; action: PersonAction };

/** The answer to a step: a tool's output, or the person's change with the Note's new version. */
export type Reply = Answer<unknown>;

/** One unit of an experiment: yields steps, receives replies, returns its figures. */
export type Script<T> = Generator<Step, T, Reply>;

/** Calls an agent tool; `yield*` it inside a script. */
export function* agent<N extends AgentTool>(tool: N, args: ToolArgs<N>): Generator<Step, Answer<ToolOutputs[N]>, Reply> {
  return (yield { kind: "agent", tool, args: args as Record<string, unknown> }) as Answer<ToolOutputs[N]>;
}

/** The person acts in the app; the reply carries the Note's version after the change. */
export function* person(action: PersonAction): Generator<Step, Answer<{ version: number }>, Reply> {
  return (yield { kind: "person", action }) as Answer<{ version: number }>;
}

/** Creates a Note as the person and approves it for connectors: version 2 after both. */
export function* setUpNote(noteId: string, title: string): Generator<Step, void, Reply> {
  expectOk(yield* person({ op: "create_note", note_id: noteId, title }), `create Note ${noteId}`);
  expectOk(yield* person({ op: "approve", note_id: noteId }), `approve Note ${noteId}`);
}

/** The value of a successful answer; anything else is a bug in the experiment or the server. */
export function expectOk<T>(answer: Answer<T>, what: string): T {
  if (!answer.ok) throw new Error(`${what}: unexpected ${answer.error.code}: ${answer.error.message}`);
  return answer.value;
}

/**
 * A Note ID for one unit: `sim{experiment}-{tag}-{unit}`. The tag is eight
 * characters in both modes ("00000000" in process, random with `--live`, so a
 * live run never meets an earlier run's Notes), so request sizes agree.
 */
export function noteIdFor(experiment: number, tag: string, unit: string): string {
  if (!/^[a-z0-9]{8}$/.test(tag)) throw new Error(`a run tag is 8 lower-case letters or digits, not "${tag}"`);
  return `sim${experiment}-${tag}-${unit}`;
}

/** The tag of in-process runs. */
export const IN_PROCESS_TAG = "00000000";

/**
 * A server no deployment runs, played by the simulation beside the Note (sim/in-process.ts):
 * "version-first" checks `expected_version` before it hands a write to the Note, which checks the key.
 */
export type PlayedServer = "version-first";

/** Where a unit's figures came from: the domain in this process, a running server, or a server the simulation plays in process. */
export type Source = "in process" | "live" | "in process (version first)";

/**
 * One independent unit of an experiment (a run, a session, a deck): its own
 * Notes, its own random streams. Units can run in any order or side by side.
 */
export interface Unit<R> {
  /** The server this unit needs the simulation to play in process; such a unit does not run live. */
  server?: PlayedServer;
  script(tag: string): Script<R>;
}
