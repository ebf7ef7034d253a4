/**
 * What a tool call costs its Note: rows read and written (the SQLite cursor's
 * counters, summed by the Note object) per call, over a known number of
 * calls made one after another on an otherwise idle Note, and the Note's
 * storage before and after.
 *
 * GET /bench/stats counts the sources and idempotency rows after reading the
 * counters, so its own reads land in the next reading. Two readings with
 * nothing between them measure that, and it is taken off:
 * calls = (after − second) − (second − first). The caller's directory object is
 * read too, before and after, once its deliveries from the Note have stopped.
 */
import { noteStats, settledDirectoryStats, type NoteStats } from "./bench-routes.js";
import { addSlidesTab, createDeckNote, createSheetNote, deepCursor, deepRowsCursor, outline, PAGE_LIMIT, sheetRows, type SheetNote } from "./fixtures.js";
import { callTool } from "./mcp-call.js";
import type { BenchOptions } from "./options.js";
import { ROWS_PER_APPEND, UPDATE_DECK_SLIDES, type WorkloadContext } from "./workloads.js";

export interface CallCost {
  /** The workload's id (as in the load table). */
  id: string;
  name: string;
  noteId: string;
  calls: number;
  rowsReadPerCall: number;
  rowsWrittenPerCall: number;
  /**
   * The same counters on the caller's directory object (alice's), read once its
   * deliveries stopped: what keeping her cross-Note search index (and her list
   * of Notes) current cost per call.
   */
  directoryRowsReadPerCall: number;
  directoryRowsWrittenPerCall: number;
  databaseBytesBefore: number;
  databaseBytesAfter: number;
  idempotencyBefore: number;
  idempotencyAfter: number;
}

/** The bench's user (bench/server.ts signs alice in): her directory receives every bench Note's entries. */
const DIRECTORY_USER = "alice";

async function measureCost(
  origin: string,
  spec: { id: string; name: string; noteId: string; calls: number },
  call: (index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<CallCost> {
  const directoryBefore = await settledDirectoryStats(origin, DIRECTORY_USER);
  const first = await noteStats(origin, spec.noteId);
  const second = await noteStats(origin, spec.noteId);
  for (let i = 0; i < spec.calls; i++) {
    signal?.throwIfAborted();
    await call(i);
  }
  const after = await noteStats(origin, spec.noteId);
  const directoryAfter = await settledDirectoryStats(origin, DIRECTORY_USER);
  const own = (key: keyof NoteStats): number => after[key] - second[key] - (second[key] - first[key]);
  const round = (n: number): number => Math.round(n * 100) / 100;
  return {
    ...spec,
    rowsReadPerCall: round(own("rows_read") / spec.calls),
    rowsWrittenPerCall: round(own("rows_written") / spec.calls),
    directoryRowsReadPerCall: round((directoryAfter.rows_read - directoryBefore.rows_read) / spec.calls),
    directoryRowsWrittenPerCall: round((directoryAfter.rows_written - directoryBefore.rows_written) / spec.calls),
    databaseBytesBefore: second.database_bytes,
    databaseBytesAfter: after.database_bytes,
    idempotencyBefore: second.idempotency_records,
    idempotencyAfter: after.idempotency_records,
  };
}

/** Each workload's calls made one after another on an idle Note, with the Note's counters read around them. */
export async function measureCosts(ctx: WorkloadContext, options: BenchOptions, sourceNotes: Map<number, string>, sheetNotes: Map<number, SheetNote>): Promise<CallCost[]> {
  const { api, origin, agentToken } = ctx;
  const n = options.costCalls;
  const costs: CallCost[] = [];
  const call = <T>(tool: string, args: Record<string, unknown>): Promise<T> => callTool<T>(origin, agentToken, tool, args);
  const reads = async (id: string, name: string, noteId: string, tool: string, args: Record<string, unknown>): Promise<void> => {
    costs.push(await measureCost(origin, { id, name, noteId, calls: n }, () => call(tool, args).then(() => undefined), options.signal));
  };
  /** `calls` writes to `noteId`, each at the version the last one answered, with a key of its own. */
  const writes = async (id: string, name: string, noteId: string, calls: number, version: number, tool: string, args: (i: number) => Record<string, unknown>): Promise<void> => {
    const cost = await measureCost(origin, { id, name, noteId, calls }, async (i) => {
      version = (await call<{ version: number }>(tool, { note_id: noteId, expected_version: version, idempotency_key: `cost-${id}-${i}`, ...args(i) })).version;
    }, options.signal);
    costs.push(cost);
  };

  const deck = await createDeckNote(api, "cost-deck");
  await reads("list_note_tabs", "list_note_tabs", deck.noteId, "list_note_tabs", { note_id: deck.noteId });
  const slides = outline(20);
  await writes("create_note_tab", "create_note_tab, 20-slide outline", "cost-create", Math.min(n, 100), await api.createApprovedNote("cost-create"), "create_note_tab", () => ({ tab_type: "slides", slides }));
  await api.createApprovedNote("cost-slide");
  const added = await addSlidesTab(api, "cost-slide", "Bench deck");
  await writes("slide_add", "edit_note_tab slide_add", "cost-slide", Math.min(n, 480), added.version, "edit_note_tab", (i) => ({
    tab_id: added.tabId,
    operation: "slide_add",
    title: `Slide ${i}`,
    body: "Three links the agent found after the outline.",
  }));
  await writes("add_note_source", "add_note_source (a new URL each call)", "cost-source", n, await api.createApprovedNote("cost-source"), "add_note_source", (i) => ({
    title: `Annual report ${i}`,
    url: `https://example.org/reports/cost-${i}`,
    description: "Cited for the revenue figures.",
  }));

  // The cost law on a deck and a Sheet: the same call on a small tab and on a large one.
  for (const count of [20, UPDATE_DECK_SLIDES]) {
    const d = await createDeckNote(api, `cost-update-${count}`, count);
    const slideId = d.slideIds[Math.floor(count / 2)];
    await writes(`slide_update_${count}`, `edit_note_tab slide_update, ${count}-slide deck`, d.noteId, n, d.version, "edit_note_tab", (i) => ({
      tab_id: d.tabId,
      operation: "slide_update",
      slide_id: slideId,
      body: `Corrected figures (${i}).`,
    }));
  }
  // At most 49 calls of 100 rows: the Sheet of 5,000 rows stays within its limit of 10,000.
  const rows = sheetRows(ROWS_PER_APPEND);
  for (const start of [100, 5_000]) {
    const sheet = await createSheetNote(api, agentToken, `cost-rows-${start}`, start);
    const { version } = await call<{ version: number }>("list_note_tabs", { note_id: sheet.noteId });
    const name = `edit_note_tab rows_append of ${ROWS_PER_APPEND} rows, Sheet of ${start.toLocaleString("en-US")} rows at the start`;
    await writes(`rows_append_${start}`, name, sheet.noteId, Math.min(n, 49), version, "edit_note_tab", () => ({ tab_id: sheet.tabId, operation: "rows_append", rows }));
  }

  for (const [count, sheet] of sheetNotes) {
    for (const deep of [false, true]) {
      const args: Record<string, unknown> = { note_id: sheet.noteId, tab_id: sheet.tabId, limit: PAGE_LIMIT, ...(deep ? { cursor: deepRowsCursor(sheet, count) } : {}) };
      const name = `read_note_tab, ${deep ? "deep page (90 %)" : "first page"} of ${PAGE_LIMIT} rows, ${count.toLocaleString("en-US")}-row Sheet`;
      await reads(`read_note_tab_sheet_${deep ? "deep" : "first"}_${count}`, name, sheet.noteId, "read_note_tab", args);
    }
  }
  for (const [count, noteId] of sourceNotes) {
    for (const deep of [false, true]) {
      const args: Record<string, unknown> = { note_id: noteId, kind: "sources", limit: PAGE_LIMIT, ...(deep ? { cursor: deepCursor(noteId, count) } : {}) };
      const name = `list_note_attachments, ${deep ? "deep page (90 %)" : "first page"}, ${count.toLocaleString("en-US")} sources`;
      await reads(`list_note_attachments_${deep ? "deep" : "first"}_${count}`, name, noteId, "list_note_attachments", args);
    }
  }
  return costs;
}
