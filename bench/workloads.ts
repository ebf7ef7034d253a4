/**
 * The timed workloads: each is the requests autocannon sends for one row of
 * the report, what body counts as success, and, for writes, the lanes that
 * keep every write committing (write-lanes.ts), provisioned before the
 * warm-up and again before the timed load.
 */
import type autocannon from "autocannon";
import type { PersonApi } from "../scripts/lib/person-api.js";
import { seedSources } from "./bench-routes.js";
import { addSheetTab, addSlidesTab, createDeckNote, deepCursor, deepRowsCursor, outline, PAGE_LIMIT, sheetRows, type DeckNote, type SheetNote } from "./fixtures.js";
import { isCommittedWrite, isMcpError, MCP_PATH, mcpHeaders, toolCallBody } from "./mcp-call.js";
import { WriteLanes, type BuildCall, type WriteTarget } from "./write-lanes.js";

export type Section = "reference" | "ladder" | "tools" | "attachments" | "sheets" | "parallel";

export interface Workload {
  id: string;
  name: string;
  section: Section;
  /** 0: the run's connections. */
  connections: number;
  /** Which Notes the calls hit, in words. */
  notes: string;
  /** Fresh requests for one load (the warm-up and the timed load each get their own). */
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
const ROWS_PER_SHEET = 10_000;
/** Rows each rows_append call sends. */
export const ROWS_PER_APPEND = 100;
/** The deck slide_update corrects a slide of: one at its limit, where a cost in proportion to the deck would show most. */
export const UPDATE_DECK_SLIDES = 500;

const readOk = (body: string): boolean => body.startsWith("{") && !isMcpError(body);
const plain = (id: string, name: string, section: Section, request: autocannon.Request, accept: (body: string) => boolean, okStatus?: number): Workload => ({
  id,
  name,
  section,
  connections: 0,
  notes: section === "reference" && id === "baseline" ? "1 object" : "–",
  requests: () => [request],
  accept,
  ...(okStatus === undefined ? {} : { okStatus }),
});
const read = (ctx: WorkloadContext, id: string, name: string, section: Section, tool: string, args: Record<string, unknown>): Workload => ({
  ...plain(id, name, section, { method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken), body: "" }, readOk),
  notes: "1",
  requests: () => [{ method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken), body: toolCallBody(tool, args) }],
});

export const getRoot = (): Workload => plain("get_root", "GET / (the Worker only, no Durable Object)", "reference", { method: "GET", path: "/" }, (body) => body.includes('"mcp"'));

/** The baseline: one call to a Durable Object that answers a constant (bench/worker.ts). */
export const baseline = (): Workload =>
  plain("baseline", "baseline: GET /bench/baseline (one call to a Durable Object that returns a constant)", "reference", { method: "GET", path: "/bench/baseline" }, (body) => body === "ok");

/** The OAuth check alone: GET /mcp answers 405 once the token is verified. */
export const authOnly = (ctx: WorkloadContext): Workload =>
  plain("auth_only", "GET /mcp with the token: the OAuth check, then 405 (no MCP, no object)", "ladder", { method: "GET", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken) }, (body) => body.includes("takes POST only"), 405);

/** One MCP message through the SDK's server and transport, no Durable Object. */
export const mcpMessage = (ctx: WorkloadContext, method: "ping" | "tools/list"): Workload =>
  plain(
    `mcp_${method.replace("/", "_")}`,
    `POST /mcp ${method}: OAuth, the MCP SDK's server and transport (no object)`,
    "ladder",
    { method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken), body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }) },
    (body) => body.includes('"result"'),
  );

export const listNoteTabs = (ctx: WorkloadContext, deck: DeckNote, section: Section = "tools", id = "list_note_tabs"): Workload =>
  read(ctx, id, "list_note_tabs", section, "list_note_tabs", { note_id: deck.noteId });

/** list_note_tabs spread over many Notes: each connection starts on a Note of its own and moves to the next on every call. */
export function listNoteTabsSpread(ctx: WorkloadContext, decks: readonly DeckNote[]): Workload {
  const bodies = decks.map((d) => toolCallBody("list_note_tabs", { note_id: d.noteId }));
  const stride = Math.max(1, Math.floor(bodies.length / ctx.connections));
  return {
    ...read(ctx, `list_note_tabs_${decks.length}_notes`, "list_note_tabs", "parallel", "list_note_tabs", {}),
    notes: `${decks.length}`,
    requests: () => {
      let nextConnection = 0;
      const setupRequest = (request: autocannon.RequestParams): autocannon.RequestParams => {
        const slot = request.slot as { at: number };
        slot.at = slot.at < 0 ? nextConnection++ * stride : slot.at + 1;
        request.body = bodies[slot.at % bodies.length] as string;
        return request;
      };
      return [{ method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken), slot: { at: -1 }, setupRequest }];
    },
  };
}

/** A page of a Note's sources: the first, or the full page that ends at 90 % of the list. */
export function attachmentsPage(ctx: WorkloadContext, noteId: string, sources: number, deep: boolean): Workload {
  const args: Record<string, unknown> = { note_id: noteId, kind: "sources", limit: PAGE_LIMIT, ...(deep ? { cursor: deepCursor(noteId, sources) } : {}) };
  const name = `list_note_attachments, ${deep ? "deep page (90 %)" : "first page"}, ${sources.toLocaleString("en-US")} sources`;
  return read(ctx, `list_note_attachments_${deep ? "deep" : "first"}_${sources}`, name, "attachments", "list_note_attachments", args);
}

/** read_note_tab on a Sheet: its first page, or the full page ending at 90 % of its rows. */
export function sheetPage(ctx: WorkloadContext, sheet: SheetNote, rows: number, deep: boolean): Workload {
  const args: Record<string, unknown> = { note_id: sheet.noteId, tab_id: sheet.tabId, limit: PAGE_LIMIT, ...(deep ? { cursor: deepRowsCursor(sheet, rows) } : {}) };
  const name = `read_note_tab, ${deep ? "deep page (90 %)" : "first page"} of ${PAGE_LIMIT} rows, ${rows.toLocaleString("en-US")}-row Sheet`;
  return read(ctx, `read_note_tab_sheet_${deep ? "deep" : "first"}_${rows}`, name, "sheets", "read_note_tab", args);
}

/**
 * A write over lanes (by default one a connection): `addTarget(lanes, i)`
 * gives lane i another Note or tab when it has too little room left.
 */
function write(
  ctx: WorkloadContext,
  spec: Pick<Workload, "id" | "name" | "section"> & Partial<Pick<Workload, "connections" | "notes">>,
  lanes: WriteLanes,
  addTarget: (laneIndex: number) => Promise<void>,
): Workload {
  return {
    connections: ctx.connections,
    notes: `${ctx.connections} (own per connection)`,
    ...spec,
    requests: () => [lanes.request(ctx.agentToken)],
    accept: isCommittedWrite,
    async provision(expectedCalls) {
      const perLane = Math.ceil(expectedCalls / lanes.lanes.length) + 5;
      await lanes.resync(ctx.origin, ctx.agentToken);
      for (const [i, lane] of lanes.lanes.entries()) {
        const left = (): number => lane.targets.reduce((sum, t) => sum + Math.max(0, t.left), 0);
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

function lanesOf(ctx: WorkloadContext, name: string, build: BuildCall, capacity: WriteLanes["capacity"], rotate = false): WriteLanes {
  const lanes = new WriteLanes(name, build, capacity, rotate);
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return lanes;
}

const keyed = (target: WriteTarget, version: number, key: string) => ({ note_id: target.noteId, expected_version: version, idempotency_key: key });

/** create_note_tab with a 20-slide outline; each connection fills Notes of its own (100 tabs each). */
export function createNoteTab(ctx: WorkloadContext): Workload {
  const slides = outline(20);
  const build: BuildCall = (target, version, key) => ({ tool: "create_note_tab", args: { ...keyed(target, version, key), tab_type: "slides", label: "Bench deck", slides } });
  const lanes = lanesOf(ctx, "create", build, (_target, view) => TABS_PER_NOTE - view.tabs.filter((t) => t.type === "slides" || t.type === "sheet").length);
  const spec = { id: "create_note_tab", name: "create_note_tab, 20-slide outline", section: "tools" as const, notes: `${ctx.connections}+ (own per connection)` };
  return write(ctx, spec, lanes, async (i) => {
    const lane = lanes.lanes[i];
    if (lane === undefined) return;
    const noteId = `create-${i}-${lane.targets.length}`;
    await ctx.api.createApprovedNote(noteId);
    lane.targets.push({ noteId, left: TABS_PER_NOTE });
  });
}

/** slide_add lanes: a lane without room gets a new Slides tab on its last Note, or a Note of its own first. */
function slideAddWrite(ctx: WorkloadContext, spec: Parameters<typeof write>[1], lanes: WriteLanes): Workload {
  return write(ctx, spec, lanes, async (i) => {
    const lane = lanes.lanes[i];
    if (lane === undefined) return;
    let noteId = lane.targets.at(-1)?.noteId;
    if (noteId === undefined) await ctx.api.createApprovedNote((noteId = `${lanes.name}-${i}`));
    const { tabId } = await addSlidesTab(ctx.api, noteId, `Deck ${lane.targets.length + 1}`);
    lane.targets.push({ noteId, tabId, left: SLIDES_PER_TAB });
  });
}

function slideAddLanes(ctx: WorkloadContext, name: string, rotate = false): WriteLanes {
  const build: BuildCall = (target, version, key) => ({
    tool: "edit_note_tab",
    args: { ...keyed(target, version, key), tab_id: target.tabId, operation: "slide_add", title: "A slide found later", body: "Three links the agent found after the outline." },
  });
  return lanesOf(ctx, name, build, (target, view) => SLIDES_PER_TAB - (view.tabs.find((t) => t.id === target.tabId)?.slide_count ?? SLIDES_PER_TAB), rotate);
}

/** edit_note_tab slide_add; each connection appends to a Slides tab of a Note of its own. */
export const slideAdd = (ctx: WorkloadContext): Workload => slideAddWrite(ctx, { id: "slide_add", name: "edit_note_tab slide_add", section: "tools" }, slideAddLanes(ctx, "slide"));

/** slide_add on one Note: its writes take turns on the version, so one writer. */
export function slideAddOneNote(ctx: WorkloadContext, deck: DeckNote): Workload {
  const lanes = slideAddLanes({ ...ctx, connections: 1 }, "slide1");
  lanes.lanes[0]?.targets.push({ noteId: deck.noteId, tabId: deck.tabId, left: SLIDES_PER_TAB - 20 });
  return slideAddWrite(ctx, { id: "slide_add_1_note", name: "edit_note_tab slide_add (1 writer: one Note's writes are serial)", section: "parallel", connections: 1, notes: "1" }, lanes);
}

/** slide_add spread over many Notes: connection i rotates over the Notes j with j mod connections = i. */
export function slideAddSpread(ctx: WorkloadContext, decks: readonly DeckNote[]): Workload {
  const lanes = slideAddLanes(ctx, "slidemany", true);
  decks.forEach((deck, j) => lanes.lanes[j % ctx.connections]?.targets.push({ noteId: deck.noteId, tabId: deck.tabId, left: SLIDES_PER_TAB - 20 }));
  return slideAddWrite(ctx, { id: `slide_add_${decks.length}_notes`, name: "edit_note_tab slide_add", section: "parallel", notes: `${decks.length}` }, lanes);
}

/** slide_update: each connection corrects the middle slide of a 500-slide deck of its own, with a new body each call. */
export function slideUpdate(ctx: WorkloadContext): Workload {
  const build: BuildCall = (target, version, key) => ({
    tool: "edit_note_tab",
    args: { ...keyed(target, version, key), tab_id: target.tabId, operation: "slide_update", slide_id: target.itemId, body: `Corrected figures (${key}).` },
  });
  const lanes = lanesOf(ctx, "slideupd", build, () => Number.MAX_SAFE_INTEGER);
  return write(ctx, { id: "slide_update", name: `edit_note_tab slide_update, ${UPDATE_DECK_SLIDES}-slide deck`, section: "tools" }, lanes, async (i) => {
    const lane = lanes.lanes[i];
    if (lane === undefined || lane.targets.length > 0) return;
    const deck = await createDeckNote(ctx.api, `slideupd-${i}`, UPDATE_DECK_SLIDES);
    lane.targets.push({ noteId: deck.noteId, tabId: deck.tabId, itemId: deck.slideIds[UPDATE_DECK_SLIDES / 2], left: Number.MAX_SAFE_INTEGER });
  });
}

/**
 * slide_update on a 20-slide deck of `members` members (alice and `members` − 1
 * others): each connection corrects the middle slide of a deck of its own. A
 * write is delivered to every member's directory before it answers (their
 * cross-Note search copies), so 5 members against 1 is what that upkeep costs a
 * write, measured in one run.
 */
export function slideUpdateMembers(ctx: WorkloadContext, members: number): Workload {
  const build: BuildCall = (target, version, key) => ({
    tool: "edit_note_tab",
    args: { ...keyed(target, version, key), tab_id: target.tabId, operation: "slide_update", slide_id: target.itemId, body: `Corrected figures (${key}).` },
  });
  const lanes = lanesOf(ctx, `members${members}`, build, () => Number.MAX_SAFE_INTEGER);
  const spec = { id: `slide_update_${members}_members`, name: `edit_note_tab slide_update, 20-slide deck of ${members} member${members === 1 ? "" : "s"}`, section: "tools" as const };
  return write(ctx, spec, lanes, async (i) => {
    const lane = lanes.lanes[i];
    if (lane === undefined || lane.targets.length > 0) return;
    const deck = await createDeckNote(ctx.api, `members${members}-${i}`);
    for (let m = 1; m < members; m++) {
      const added = await ctx.api.request("POST", `/notes/${deck.noteId}/members`, { user: `member${m}` });
      if (added.status !== 200) throw new Error(`add member${m} to ${deck.noteId}: HTTP ${added.status} ${JSON.stringify(added.body).slice(0, 200)}`);
    }
    lane.targets.push({ noteId: deck.noteId, tabId: deck.tabId, itemId: deck.slideIds[10], left: Number.MAX_SAFE_INTEGER });
  });
}

/** rows_append of 100 rows; each connection fills Sheets (10,000 rows each) of a Note of its own. */
export function rowsAppend(ctx: WorkloadContext): Workload {
  const rows = sheetRows(ROWS_PER_APPEND);
  const build: BuildCall = (target, version, key) => ({ tool: "edit_note_tab", args: { ...keyed(target, version, key), tab_id: target.tabId, operation: "rows_append", rows } });
  const capacity: WriteLanes["capacity"] = (target, view) => Math.floor((ROWS_PER_SHEET - (view.tabs.find((t) => t.id === target.tabId)?.row_count ?? ROWS_PER_SHEET)) / ROWS_PER_APPEND);
  const lanes = lanesOf(ctx, "rows", build, capacity);
  return write(ctx, { id: "rows_append", name: `edit_note_tab rows_append of ${ROWS_PER_APPEND} rows`, section: "tools" }, lanes, async (i) => {
    const lane = lanes.lanes[i];
    if (lane === undefined) return;
    if (lane.targets.length === 0) await ctx.api.createApprovedNote(`rows-${i}`);
    const tabId = await addSheetTab(ctx.origin, ctx.agentToken, `rows-${i}`, `rows-${i}-sheet-${lane.targets.length}`);
    lane.targets.push({ noteId: `rows-${i}`, tabId, left: ROWS_PER_SHEET / ROWS_PER_APPEND });
  });
}

const citation = (name: string): WriteLanes => {
  const build: BuildCall = (target, version, key) => ({
    tool: "add_note_source",
    args: { ...keyed(target, version, key), title: `Annual report ${key}`, url: `https://example.org/${name}/${key}`, description: "Cited for the revenue figures." },
  });
  return new WriteLanes(name, build, () => 100_000); // far more than any run adds
};

/** add_note_source with a new URL each call; each connection cites into a Note of its own. */
export function addNoteSource(ctx: WorkloadContext): Workload {
  const lanes = citation("source");
  for (let i = 0; i < ctx.connections; i++) lanes.addLane();
  return write(ctx, { id: "add_note_source", name: "add_note_source (a new URL each call)", section: "tools" }, lanes, async (i) => {
    const lane = lanes.lanes[i];
    if (lane === undefined || lane.targets.length > 0) return;
    await ctx.api.createApprovedNote(`source-${i}`);
    lane.targets.push({ noteId: `source-${i}`, left: 100_000 });
  });
}

/** The memory run's calls in turn: two reads of a deck Note with 100 sources, and a citation into a Note per connection. */
export async function memoryMix(ctx: WorkloadContext): Promise<{ requests(): autocannon.Request[]; resync(): Promise<void> }> {
  const deck = await createDeckNote(ctx.api, "memory");
  await seedSources(ctx.origin, "memory", 100);
  const lanes = citation("memory");
  for (let i = 0; i < ctx.connections; i++) {
    await ctx.api.createApprovedNote(`memory-${i}`);
    lanes.addLane().targets.push({ noteId: `memory-${i}`, left: 100_000 });
  }
  await lanes.resync(ctx.origin, ctx.agentToken);
  const call = (tool: string, args: Record<string, unknown>): autocannon.Request => ({ method: "POST", path: MCP_PATH, headers: mcpHeaders(ctx.agentToken), body: toolCallBody(tool, args), accept: readOk });
  return {
    requests: () => [
      call("list_note_tabs", { note_id: deck.noteId }),
      call("list_note_attachments", { note_id: deck.noteId, kind: "sources", limit: PAGE_LIMIT }),
      { ...lanes.request(ctx.agentToken), accept: isCommittedWrite },
    ],
    resync: () => lanes.resync(ctx.origin, ctx.agentToken),
  };
}
