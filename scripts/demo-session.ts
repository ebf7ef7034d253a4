/**
 * One agent session against a running connector, through the official MCP
 * TypeScript client (`@modelcontextprotocol/client`, the SDK's v2 client)
 * over Streamable HTTP: the three promises of docs/spec.md §1
 * acted out step by step. `npm run demo` prints it; the end-to-end tests
 * assert its transcript.
 *
 * @example
 * const { access_token } = await signIn({ origin: "http://127.0.0.1:8787", user: "alice", scopes: ["osfoundry:read", "osfoundry:write"] });
 * const transcript = await runDemoSession("http://127.0.0.1:8787/mcp", access_token, console.log);
 * transcript.lostResponse.resend.replayed; // true
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { z } from "zod";
import { inputs, outputSchemas, type Outputs } from "../src/mcp/schemas.js";
import { DECK } from "./lib/deck.js";
import { DEMO_NOTE_ID } from "./local-server.js";

type ToolName = keyof Outputs;
/** A tool's `structuredContent`, as its declared output schema describes it. */
export type ToolOutput<N extends ToolName> = z.output<Outputs[N]>;
/** A tool's arguments, as its input schema takes them. */
export type ToolArguments<N extends ToolName> = z.input<(typeof inputs)[N]>;

/** A tool's failure: the `{code, message, ...}` of its `isError` result. */
export interface ToolErrorBody {
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** A tool call the demo needed to succeed came back with `isError: true`. */
export class ToolCallError extends Error {
  constructor(
    readonly tool: string,
    readonly error: ToolErrorBody,
  ) {
    super(`${tool} failed with ${error.code}: ${error.message}`);
    this.name = "ToolCallError";
  }
}

/** What the session did and what the server answered at each step. */
export interface DemoTranscript {
  /** Names this run's idempotency keys and cited URLs, so a run never collides with an earlier one. */
  runId: string;
  noteId: string;
  /** The names `tools/list` gave. */
  tools: string[];
  notes: ToolOutput<"list_notes">;
  tabsBefore: ToolOutput<"list_note_tabs">;
  /** The 12-slide deck, created in one call. */
  deck: ToolOutput<"create_note_tab">;
  /** The deck read back, before the correction. */
  deckBefore: ToolOutput<"read_note_tab">;
  /** One slide corrected in place, by its exact slide ID: no slide added. */
  slideCorrected: ToolOutput<"edit_note_tab">;
  /** The deck read back after the correction. */
  deckAfter: ToolOutput<"read_note_tab">;
  sources: {
    first: ToolOutput<"add_note_source">;
    second: ToolOutput<"add_note_source">;
    /** The first page again, spelled differently, under its own key. */
    respelled: ToolOutput<"add_note_source">;
  };
  lostResponse: {
    /** The first answer, which the client "never received": kept only so a test can compare. */
    dropped: ToolOutput<"create_note_tab">;
    /** The very same call sent again: same key, same (now stale) expected_version. */
    resend: ToolOutput<"create_note_tab">;
  };
  tabsAfter: ToolOutput<"list_note_tabs">;
  /** The promises the session checked as it went; `npm run demo` fails if one did not hold. */
  checks: { name: string; ok: boolean }[];
}

export interface DemoOptions {
  noteId?: string;
  runId?: string;
}

/** Connects the official client to `mcpUrl` with a bearer token; it negotiates the protocol revision itself. */
export async function connectClient(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "notes-connector-demo", version: "0.1.0" });
  // The minimal auth provider: a token from the local sign-in, sent on every request.
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: { token: async () => token } });
  await client.connect(transport);
  return client;
}

/** The slide the agent got wrong, by its place in DECK, and what it should have said. */
const WRONG_SLIDE = 4;
const CORRECTED_BODY = "Beta in week 1, GA in week 6: the security review moved it.";

/**
 * The demo: find the Note, list its tabs, create a 12-slide deck in one call,
 * read it back, correct one slide in place by its exact slide ID (no slide
 * added), read it again, cite three pages (one of them twice, spelled
 * differently), lose a create's answer and resend it, list again.
 * Every call and answer goes through `log`. Each write takes its
 * `expected_version` from the latest answer; keys and cited URLs carry the
 * run ID, so the session can run again against the same Note. Labels stay
 * plain: they need not be unique, and the session never looks a tab up by one.
 */
export async function runDemoSession(
  mcpUrl: string,
  token: string,
  log: (line: string) => void,
  options: DemoOptions = {},
): Promise<DemoTranscript> {
  const noteId = options.noteId ?? DEMO_NOTE_ID;
  const runId = options.runId ?? newRunId();
  const checks: DemoTranscript["checks"] = [];
  const check = (name: string, ok: boolean): void => {
    checks.push({ name, ok });
    log(`   ${ok ? "✓" : "✗"} ${name}`);
  };

  log(`connect ${mcpUrl} (run ${runId})`);
  const client = await connectClient(mcpUrl, token);
  try {
    const call = <N extends ToolName>(name: N, args: ToolArguments<N>): Promise<ToolOutput<N>> => callTool(client, log, name, args);
    const server = client.getServerVersion();
    log(`   connected to ${server?.title ?? server?.name ?? "server"} ${server?.version ?? ""}`.trimEnd());

    const listed = await client.listTools();
    const tools = listed.tools.map((t) => t.name);
    log(`tools/list → ${tools.join(", ")}`);

    const notes = await call("list_notes", {});
    const found = notes.notes.some((n) => n.note_id === noteId);
    check(`list_notes finds "${noteId}"`, found);
    if (!found) throw new Error(`Note "${noteId}" is not among the Notes this token may use; \`npm start\` seeds it.`);

    const tabsBefore = await call("list_note_tabs", { note_id: noteId });

    const deck = await call("create_note_tab", {
      note_id: noteId,
      expected_version: tabsBefore.version,
      idempotency_key: `demo-${runId}:create-deck:launch-plan`,
      tab_type: "slides",
      label: "Launch plan",
      slides: [...DECK],
    });
    check("the whole 12-slide outline went in one call", deck.slide_count === 12);
    check("the write bumped the version by one", deck.version === tabsBefore.version + 1);

    // One slide came out wrong. The agent corrects that slide where it is, by the
    // exact ID create_note_tab returned, instead of appending a second one.
    const deckBefore = await call("read_note_tab", { note_id: noteId, tab_id: deck.tab_id });
    deckLines(deckBefore.slides ?? []).forEach((line) => log(line));
    const wrongId = deck.slide_ids?.[WRONG_SLIDE] as string;
    const slideCorrected = await call("edit_note_tab", {
      note_id: noteId,
      expected_version: deckBefore.version,
      idempotency_key: `demo-${runId}:slide-update:${wrongId}`,
      tab_id: deck.tab_id,
      operation: "slide_update",
      slide_id: wrongId,
      body: CORRECTED_BODY,
    });
    const deckAfter = await call("read_note_tab", { note_id: noteId, tab_id: deck.tab_id });
    deckLines(deckAfter.slides ?? [], wrongId).forEach((line) => log(line));
    const before = deckBefore.slides ?? [];
    const after = deckAfter.slides ?? [];
    check(
      "slide_update corrected the slide in place by its exact ID: still 12 slides, the same IDs in the same order",
      slideCorrected.slide_count === 12 && after.map((slide) => slide.id).join() === before.map((slide) => slide.id).join(),
    );
    check(
      "only that slide's body changed",
      after.every((slide, i) => (slide.id === wrongId ? slide.body === CORRECTED_BODY && slide.title === before[i]?.title : JSON.stringify(slide) === JSON.stringify(before[i]))),
    );

    // Keys name "this URL in this Note" as the agent wrote it; the server's
    // normalization is what catches the second spelling of the same page.
    const firstUrl = `https://example.org/reports/${runId}`;
    const secondUrl = `https://example.com/blog/${runId}/launch-notes`;
    const respelledUrl = `https://www.example.org/reports/${runId}/?utm_source=x`;
    const first = await call("add_note_source", {
      note_id: noteId,
      expected_version: slideCorrected.version,
      idempotency_key: `cite:${noteId}:${firstUrl}`,
      title: "Market report",
      url: firstUrl,
      description: "Sizing for the launch goals.",
    });
    const second = await call("add_note_source", {
      note_id: noteId,
      expected_version: first.version,
      idempotency_key: `cite:${noteId}:${secondUrl}`,
      title: "Launch notes",
      url: secondUrl,
    });
    const respelled = await call("add_note_source", {
      note_id: noteId,
      expected_version: second.version,
      idempotency_key: `cite:${noteId}:${respelledUrl}`,
      title: "Market report (again)",
      url: respelledUrl,
    });
    check(
      "the same page spelled differently is the same source, and nothing was written",
      respelled.already_attached && respelled.source_id === first.source_id && respelled.version === second.version,
    );

    // A lost response: the server commits, the answer never arrives, the
    // client resends the very same call. Its expected_version is now stale.
    const lostCall: ToolArguments<"create_note_tab"> = {
      note_id: noteId,
      expected_version: respelled.version,
      idempotency_key: `demo-${runId}:create-deck:risks`,
      tab_type: "slides",
      label: "Risks",
      slides: [{ title: "Risks" }, { title: "Mitigations" }],
    };
    const dropped = await call("create_note_tab", lostCall);
    log("   (the answer above is dropped: the client saw a timeout and resends the same call)");
    const resend = await call("create_note_tab", lostCall);
    check(
      "the resend got the first result back, not a conflict and not a second deck",
      resend.replayed && resend.tab_id === dropped.tab_id && resend.version === dropped.version,
    );

    const tabsAfter = await call("list_note_tabs", { note_id: noteId });
    check("the Note has the resent deck exactly once", tabsAfter.tabs.filter((t) => t.id === resend.tab_id).length === 1);
    check("the version counted only committed writes", tabsAfter.version === resend.version);

    return {
      runId,
      noteId,
      tools,
      notes,
      tabsBefore,
      deck,
      deckBefore,
      slideCorrected,
      deckAfter,
      sources: { first, second, respelled },
      lostResponse: { dropped, resend },
      tabsAfter,
      checks,
    };
  } finally {
    await client.close();
  }
}

/** A deck as one line a slide: its index, its ID, its title and body; `changed` marked with a star. */
function deckLines(slides: readonly { id: string; index: number; title: string; body: string }[], changed?: string): string[] {
  return slides.map((slide) => `   ${slide.id === changed ? "*" : " "}${String(slide.index + 1).padStart(2)} ${slide.id}  ${slide.title}: ${brief("body", slide.body.replace(/\n/g, " ")).slice(1, -1)}`);
}

/** A short ID for one run: base36 time plus randomness. */
export function newRunId(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

async function callTool<N extends ToolName>(client: Client, log: (line: string) => void, name: N, args: ToolArguments<N>): Promise<ToolOutput<N>> {
  log(`→ ${name} ${summarize(args)}`.trimEnd());
  const result = await client.callTool({ name, arguments: args });
  if (result.isError === true) {
    const error = errorBody(result.content);
    log(`← ${name} error ${error.code}: ${error.message}`);
    throw new ToolCallError(name, error);
  }
  // The client already checked structuredContent against the declared schema; parsing again types it.
  const parsed = outputSchemas()[name].safeParse(result.structuredContent);
  if (!parsed.success) throw new Error(`${name}: structuredContent does not match its output schema: ${parsed.error.message}`);
  const value = parsed.data as ToolOutput<N>;
  log(`← ${answerSummary(name, value)}`);
  return value;
}

function errorBody(content: unknown): ToolErrorBody {
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  const text = typeof first === "object" && first !== null ? (first as { text?: unknown }).text : undefined;
  if (typeof text === "string") {
    try {
      const error = (JSON.parse(text) as { error?: unknown }).error;
      if (typeof error === "object" && error !== null) {
        const { code, message } = error as { code?: unknown; message?: unknown };
        if (typeof code === "string" && typeof message === "string") return { ...(error as Record<string, unknown>), code, message };
      }
    } catch {
      // Not the structured error of docs/spec.md §4: report the text itself below.
    }
  }
  return { code: "unexpected_error_result", message: typeof text === "string" ? text : JSON.stringify(content) };
}

function answerSummary(name: ToolName, value: Record<string, unknown>): string {
  if (name === "list_notes") {
    const { notes } = value as ToolOutput<"list_notes">;
    return `${notes.length} note(s): ${notes.map((n) => `${n.note_id} ${JSON.stringify(n.title)}`).join(", ")}`;
  }
  if (name === "list_note_tabs") {
    const list = value as ToolOutput<"list_note_tabs">;
    const tabs = list.tabs.map((t) => (t.type === "slides" ? `${t.id} ${JSON.stringify(t.label)} (${String(t.slide_count)} slides)` : t.id));
    return `${JSON.stringify(list.title)} version=${list.version}, ${tabs.length} tabs: ${tabs.join(", ")}`;
  }
  if (name === "read_note_tab") {
    const read = value as ToolOutput<"read_note_tab">;
    return `${read.tab.id} ${JSON.stringify(read.tab.label)} version=${read.version}, ${read.slides?.length ?? 0} slides${read.next_cursor === null ? "" : " (more follow)"}:`;
  }
  // What the write produced first, then the version it left and whether it was a replay.
  const { note_id: _noteId, version, replayed, arguments_differ: differ, ...rest } = value;
  return summarize({ ...rest, version, replayed, ...(differ === undefined ? {} : { arguments_differ: differ }) });
}

/** `key=value` pairs: long strings cut, arrays counted. */
function summarize(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([key, v]) => `${key}=${brief(key, v)}`)
    .join(" ");
}

function brief(key: string, value: unknown): string {
  // A write's one or two IDs are worth reading; longer lists are counted.
  if (Array.isArray(value) && key.endsWith("_ids") && value.length <= 2) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.length} ${key === "slides" ? "slides" : "items"}]`;
  if (typeof value === "string") return JSON.stringify(value.length > 70 ? `${value.slice(0, 67)}...` : value);
  if (typeof value === "object" && value !== null) return "{…}";
  return String(value);
}
