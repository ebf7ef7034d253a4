/**
 * The timed workloads: each is the requests autocannon sends for one row of
 * the table, what body counts as success, and, for writes, the lanes that
 * keep every write committing (see write-lanes.ts) with the Notes or tabs
 * they need provisioned before the warm-up and again before the timed run.
 */
import type autocannon from "autocannon";
import type { PersonApi } from "../scripts/lib/person-api.js";
import { seedSources } from "./bench-routes.js";
import {
  addSheetTab,
  addSlidesTab,
  createDeckNote,
  deepCursor,
  deepRowsCursor,
  outline,
  PAGE_LIMIT,
  sheetRows,
  type DeckNote,
  type SheetNote,
} from "./fixtures.js";
import { isCommittedWrite, isMcpError, MCP_PATH, mcpHeaders, toolCallBody, type Revision } from "./mcp-call.js";
import { WriteLanes, type WriteTarget } from "./write-lanes.js";

export type Section = "reference" | "ladder" | "tools" | "attachments" | "sheets" | "parallel";

export interface Workload {
  id: string;
  name: string;
  section: Section;
  connections: number;
  /** Which Notes the calls hit, in words. */
  notes: string;
  /** Fresh requests for one run (the warm-up and the timed run each get their own). */
  requests(): autocannon.Request[];
  accept: (body: string) => boolean;
  /** A non-2xx status that is this workload's success (see runLoad). */
  okStatus?: number;
  /** Writes: make room for `expectedCalls` more calls and read the Notes' versions. */
  provision?(expectedCalls: number): Promise<void>;
}

export interface WorkloadContext {
  origin: string;
  agentToken: string;
  api: PersonApi;
  connections: number;
}

const TABS_PER_NOTE = 100;
const SLIDES_PER_TAB = 500;
const SOURCES_PER_NOTE = 100_000;
const ROWS_PER_SHEET = 10_000;
/** Rows each rows_append call sends. */
export const ROWS_PER_APPEND = 100;
/** The deck slide_update corrects a slide of: one at its limit, where a cost in proportion to the deck would show most. */
export const UPDATE_DECK_SLIDES = 500;

function get(path: string): autocannon.Request {
  return { method: "GET", path };
}

function toolRequest(ctx: WorkloadContext, tool: string, args: Record<string, unknown>, revision: Revision = "2025-11-25"): autocannon.Request {
  return { method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken, revision, tool), body: toolCallBody(tool, args, revision) };
}

const readOk = (body: string): boolean => body.startsWith("{") && !isMcpError(body);

export function getRoot(): Workload {
  return {
    id: "get_root",
    name: "GET / (Worker only, no Durable Object)",
    section: "reference",
    connections: 0,
    notes: "–",
    requests: () => [get("/")],
    accept: (body) => body.includes('"mcp"'),
  };
}

export function baseline(id: string, name: string): Workload {
  return { id, name, section: "reference", connections: 0, notes: "1 object", requests: () => [get("/bench/baseline")], accept: (body) => body === "ok" };
}

/**
 * The steps between the baseline and a tool call, each a route that stops
 * one layer further: the OAuth check alone (GET /mcp answers 405 once the
 * token is verified), then the MCP SDK's server and transport for one
 * message (`ping`, `tools/list`), no Durable Object.
 */
export function authOnly(ctx: WorkloadContext): Workload {
  return {
    id: "auth_only",
    name: "GET /mcp with the token: OAuth check, then 405 (no MCP, no object)",
    section: "ladder",
    connections: ctx.connections,
    notes: "–",
    requests: () => [{ method: "GET", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken) }],
    accept: (body) => body.includes("takes POST only"),
    okStatus: 405,
  };
}

export function mcpMessage(ctx: WorkloadContext, method: "ping" | "tools/list"): Workload {
  return {
    id: `mcp_${method.replace("/", "_")}`,
    name: `POST /mcp ${method}: OAuth, the MCP SDK's server and transport (no object)`,
    section: "ladder",
    connections: ctx.connections,
    notes: "–",
    requests: () => [{ method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken), body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }) }],
    accept: (body) => body.includes('"result"'),
  };
}

export function listNoteTabs(ctx: WorkloadContext, deck: DeckNote, section: Section = "tools", id = "list_note_tabs", revision: Revision = "2025-11-25"): Workload {
  return {
    id,
    name: revision === "2025-11-25" ? "list_note_tabs" : `list_note_tabs (MCP ${revision})`,
    section,
    connections: ctx.connections,
    notes: "1",
    requests: () => [toolRequest(ctx, "list_note_tabs", { note_id: deck.noteId }, revision)],
    accept: readOk,
  };
}

/** list_note_tabs spread over many Notes: each connection starts on its own Note and moves to the next on every call. */
export function listNoteTabsSpread(ctx: WorkloadContext, decks: readonly DeckNote[]): Workload {
  const headers = mcpHeaders(ctx.agentToken);
  const bodies = decks.map((d) => toolCallBody("list_note_tabs", { note_id: d.noteId }));
  return {
    id: `list_note_tabs_${decks.length}_notes`,
    name: "list_note_tabs",
    section: "parallel",
    connections: ctx.connections,
    notes: `${decks.length}`,
    requests: () => {
      let nextConnection = 0;
      const stride = Math.max(1, Math.floor(bodies.length / ctx.connections));
      return [
        {
          method: "POST",
          path: MCP_PATH,
          headers,
          slot: { at: -1 },
          setupRequest: (request) => {
            const slot = request.slot as { at: number };
            slot.at = slot.at < 0 ? nextConnection++ * stride : slot.at + 1;
            request.body = bodies[slot.at % bodies.length] as string;
            return request;
          },
        },
      ];
    },
    accept: readOk,
  };
}

export function attachmentsPage(ctx: WorkloadContext, noteId: string, sources: number, deep: boolean): Workload {
  const args: Record<string, unknown> = { note_id: noteId, kind: "sources", limit: PAGE_LIMIT };
  if (deep) args.cursor = deepCursor(noteId, sources);
  return {
    id: `list_note_attachments_${deep ? "deep" : "first"}_${sources}`,
    name: `list_note_attachments, ${deep ? "deep page (90 %)" : "first page"}, ${sources.toLocaleString("en-US")} sources`,
    section: "attachments",
    connections: ctx.connections,
    notes: "1",
    requests: () => [toolRequest(ctx, "list_note_attachments", args)],
    accept: readOk,
  };
}

/** read_note_tab on a Sheet: its first page, or the full page ending at 90 % of its rows (a cursor deep into it). */
export function sheetPage(ctx: WorkloadContext, sheet: SheetNote, rows: number, deep: boolean): Workload {
  const args: Record<string, unknown> = { note_id: sheet.noteId, tab_id: sheet.tabId, limit: PAGE_LIMIT };
  if (deep) args.cursor = deepRowsCursor(sheet, rows);
  return {
    id: `read_note_tab_sheet_${deep ? "deep" : "first"}_${rows}`,
    name: `read_note_tab, ${deep ? "deep page (90 %)" : "first page"} of ${PAGE_LIMIT} rows, ${rows.toLocaleString("en-US")}-row Sheet`,
    section: "sheets",
    connections: ctx.connections,
    notes: "1",
    requests: () => [toolRequest(ctx, "read_note_tab", args)],
    accept: readOk,
  };
}

/** A write workload over lanes, one lane per connection. */
function writeWorkload(
  ctx: WorkloadContext,
  spec: Omit<Workload, "requests" | "accept" | "provision">,
  lanes: WriteLanes,
  addTarget: (laneIndex: number) => Promise<void>,
  revision: Revision = "2025-11-25",
): Workload {
  return {
    ...spec,
    requests: () => [lanes.request(ctx.agentToken, revision)],
    accept: isCommittedWrite,
    async provision(expectedCalls) {
      const perLane = Math.ceil(expectedCalls / lanes.lanes.length) + 5;
      await lanes.resync(ctx.origin, ctx.agentToken);
      for (let i = 0; i < lanes.lanes.length; i++) {
        const lane = lanes.lanes[i];
        const left = (): number => lane?.targets.reduce((sum, t) => sum + Math.max(0, t.left), 0) ?? perLane;
        while (left() < perLane) {
          const before = left();
          await addTarget(i);
          if (left() <= before) break; // nothing more to add: the shortfall will show as errors
        }
      }
      await lanes.resync(ctx.origin, ctx.agentToken);
    },
  };
}

const tabsOfNote = (view: { tabs: { type: string }[] }): number => view.tabs.filter((t) => t.type === "slides" || t.type === "sheet").length;
const slidesOfTab = (target: WriteTarget, view: { tabs: { id: string; slide_count?: number }[] }): number =>
  view.tabs.find((t) => t.id === target.tabId)?.slide_count ?? SLIDES_PER_TAB;

/** create_note_tab with a 20-slide outline; each connection fills Notes of its own (100 tabs each). */
export function createNoteTab(ctx: WorkloadContext, revision: Revision = "2025-11-25"): Workload {
  const modern = revision !== "2025-11-25";
  const slides = outline(20);
  const lanes = new WriteLanes(
    modern ? "create2026" : "create",
    (target, version, key) => ({
      tool: "create_note_tab",
      args: { note_id: target.noteId, expected_version: version, idempotency_key: key, tab_type: "slides", label: "Bench deck", slides },
    }),
    (_target, view) => TABS_PER_NOTE - tabsOfNote(view),
  );
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return writeWorkload(
    ctx,
    {
      id: modern ? "create_note_tab_2026" : "create_note_tab",
      name: `create_note_tab, 20-slide outline${modern ? ` (MCP ${revision})` : ""}`,
      section: "tools",
      connections: ctx.connections,
      notes: `${ctx.connections}+ (own per connection)`,
    },
    lanes,
    async (laneIndex) => {
      const lane = lanes.lanes[laneIndex];
      if (lane === undefined) return;
      const noteId = `create${modern ? "-2026" : ""}-${laneIndex}-${lane.targets.length}`;
      await ctx.api.createApprovedNote(noteId);
      lane.targets.push({ noteId, left: TABS_PER_NOTE });
    },
    revision,
  );
}

/** Appends to a lane's Slides tab a new one on its last Note, or on a new Note when the lane has none. */
function slideAddLanes(ctx: WorkloadContext, name: string, rotate: boolean): { lanes: WriteLanes; addTarget: (laneIndex: number) => Promise<void> } {
  const lanes = new WriteLanes(
    name,
    (target, version, key) => ({
      tool: "edit_note_tab",
      args: {
        note_id: target.noteId,
        expected_version: version,
        idempotency_key: key,
        tab_id: target.tabId,
        operation: "slide_add",
        title: "A slide found later",
        body: "Three links the agent found after the outline.",
      },
    }),
    (target, view) => SLIDES_PER_TAB - slidesOfTab(target, view),
    rotate,
  );
  const addTarget = async (laneIndex: number): Promise<void> => {
    const lane = lanes.lanes[laneIndex];
    if (lane === undefined) return;
    let noteId = lane.targets.at(-1)?.noteId;
    if (noteId === undefined) {
      noteId = `${name}-${laneIndex}`;
      await ctx.api.createApprovedNote(noteId);
    }
    const { tabId } = await addSlidesTab(ctx.api, noteId, `Deck ${lane.targets.length + 1}`);
    lane.targets.push({ noteId, tabId, left: SLIDES_PER_TAB });
  };
  return { lanes, addTarget };
}

/** edit_note_tab slide_add; each connection appends to a Slides tab of a Note of its own. */
export function slideAdd(ctx: WorkloadContext): Workload {
  const { lanes, addTarget } = slideAddLanes(ctx, "slide", false);
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return writeWorkload(
    ctx,
    { id: "slide_add", name: "edit_note_tab slide_add", section: "tools", connections: ctx.connections, notes: `${ctx.connections} (own per connection)` },
    lanes,
    addTarget,
  );
}

/** slide_add on one Note: its writes take turns on the version, so one writer. */
export function slideAddOneNote(ctx: WorkloadContext, deck: DeckNote): Workload {
  const { lanes, addTarget } = slideAddLanes(ctx, "slide1", false);
  lanes.addLane().targets.push({ noteId: deck.noteId, tabId: deck.tabId, left: SLIDES_PER_TAB - 20 });
  return writeWorkload(
    ctx,
    { id: "slide_add_1_note", name: "edit_note_tab slide_add (1 writer: one Note's writes are serial)", section: "parallel", connections: 1, notes: "1" },
    lanes,
    addTarget,
  );
}

/** slide_add spread over many Notes: connection i rotates over the Notes j with j mod connections = i. */
export function slideAddSpread(ctx: WorkloadContext, decks: readonly DeckNote[]): Workload {
  const { lanes, addTarget } = slideAddLanes(ctx, "slide64", true);
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  decks.forEach((deck, j) => lanes.lanes[j % ctx.connections]?.targets.push({ noteId: deck.noteId, tabId: deck.tabId, left: SLIDES_PER_TAB - 20 }));
  return writeWorkload(
    ctx,
    { id: `slide_add_${decks.length}_notes`, name: "edit_note_tab slide_add", section: "parallel", connections: ctx.connections, notes: `${decks.length}` },
    lanes,
    addTarget,
  );
}

/**
 * edit_note_tab slide_update: each connection corrects one slide in the middle
 * of a 500-slide deck of a Note of its own, by its exact ID, with a new body
 * each call (an update to what is there would still commit, but write less).
 */
export function slideUpdate(ctx: WorkloadContext): Workload {
  const lanes = new WriteLanes(
    "slideupd",
    (target, version, key) => ({
      tool: "edit_note_tab",
      args: { note_id: target.noteId, expected_version: version, idempotency_key: key, tab_id: target.tabId, operation: "slide_update", slide_id: target.itemId, body: `Corrected figures (${key}).` },
    }),
    () => Number.MAX_SAFE_INTEGER, // a slide takes any number of corrections
  );
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return writeWorkload(
    ctx,
    {
      id: "slide_update",
      name: `edit_note_tab slide_update, ${UPDATE_DECK_SLIDES}-slide deck`,
      section: "tools",
      connections: ctx.connections,
      notes: `${ctx.connections} (own per connection)`,
    },
    lanes,
    async (laneIndex) => {
      const lane = lanes.lanes[laneIndex];
      if (lane === undefined || lane.targets.length > 0) return;
      const deck = await createDeckNote(ctx.api, `slideupd-${laneIndex}`, UPDATE_DECK_SLIDES);
      lane.targets.push({ noteId: deck.noteId, tabId: deck.tabId, itemId: deck.slideIds[UPDATE_DECK_SLIDES / 2], left: Number.MAX_SAFE_INTEGER });
    },
  );
}

/** edit_note_tab rows_append of 100 rows; each connection fills Sheets (10,000 rows each) of a Note of its own. */
export function rowsAppend(ctx: WorkloadContext): Workload {
  const rows = sheetRows(ROWS_PER_APPEND);
  const lanes = new WriteLanes(
    "rows",
    (target, version, key) => ({
      tool: "edit_note_tab",
      args: { note_id: target.noteId, expected_version: version, idempotency_key: key, tab_id: target.tabId, operation: "rows_append", rows },
    }),
    (target, view) => Math.floor((ROWS_PER_SHEET - (view.tabs.find((t) => t.id === target.tabId)?.row_count ?? ROWS_PER_SHEET)) / ROWS_PER_APPEND),
  );
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return writeWorkload(
    ctx,
    { id: "rows_append", name: `edit_note_tab rows_append of ${ROWS_PER_APPEND} rows`, section: "tools", connections: ctx.connections, notes: `${ctx.connections} (own per connection)` },
    lanes,
    async (laneIndex) => {
      const lane = lanes.lanes[laneIndex];
      if (lane === undefined) return;
      const noteId = `rows-${laneIndex}`;
      if (lane.targets.length === 0) await ctx.api.createApprovedNote(noteId);
      const tabId = await addSheetTab(ctx.origin, ctx.agentToken, noteId, `rows-${laneIndex}-sheet-${lane.targets.length}`);
      lane.targets.push({ noteId, tabId, left: ROWS_PER_SHEET / ROWS_PER_APPEND });
    },
  );
}

/** add_note_source with a new URL each call; each connection cites into a Note of its own. */
export function addNoteSource(ctx: WorkloadContext): Workload {
  const lanes = new WriteLanes(
    "source",
    (target, version, key) => ({
      tool: "add_note_source",
      args: {
        note_id: target.noteId,
        expected_version: version,
        idempotency_key: key,
        title: `Annual report ${key}`,
        url: `https://example.org/reports/${key}`,
        description: "Cited for the revenue figures.",
      },
    }),
    () => SOURCES_PER_NOTE, // far more than any run adds
  );
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return writeWorkload(
    ctx,
    { id: "add_note_source", name: "add_note_source (a new URL each call)", section: "tools", connections: ctx.connections, notes: `${ctx.connections} (own per connection)` },
    lanes,
    async (laneIndex) => {
      const lane = lanes.lanes[laneIndex];
      if (lane === undefined || lane.targets.length > 0) return;
      const noteId = `source-${laneIndex}`;
      await ctx.api.createApprovedNote(noteId);
      lane.targets.push({ noteId, left: SOURCES_PER_NOTE });
    },
  );
}

/** The memory run's calls: fresh requests for each run, and the writers' versions read again after one. */
export interface MemoryMix {
  requests(): autocannon.Request[];
  resync(): Promise<void>;
}

/** A mix for the memory run: two reads of a deck Note with 100 sources and a citation into a Note per connection. */
export async function memoryMix(ctx: WorkloadContext): Promise<MemoryMix> {
  const deck = await createDeckNote(ctx.api, "memory");
  await seedSources(ctx.origin, "memory", 100);
  const lanes = new WriteLanes(
    "memory",
    (target, version, key) => ({
      tool: "add_note_source",
      args: { note_id: target.noteId, expected_version: version, idempotency_key: key, title: `Report ${key}`, url: `https://example.org/memory/${key}` },
    }),
    () => 100_000,
  );
  for (let i = 0; i < ctx.connections; i++) {
    const noteId = `memory-${i}`;
    await ctx.api.createApprovedNote(noteId);
    lanes.addLane().targets.push({ noteId, left: 100_000 });
  }
  await lanes.resync(ctx.origin, ctx.agentToken);
  const headers = mcpHeaders(ctx.agentToken);
  const read = (tool: string, args: Record<string, unknown>): autocannon.Request => ({
    method: "POST",
    path: MCP_PATH,
    headers,
    body: toolCallBody(tool, args),
    accept: (body: string) => !isMcpError(body),
  });
  return {
    requests: () => [
      read("list_note_tabs", { note_id: deck.noteId }),
      read("list_note_attachments", { note_id: deck.noteId, kind: "sources", limit: PAGE_LIMIT }),
      { ...lanes.request(ctx.agentToken), accept: isCommittedWrite },
    ],
    resync: () => lanes.resync(ctx.origin, ctx.agentToken),
  };
}
