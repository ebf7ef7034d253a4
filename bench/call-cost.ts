/**
 * What a tool call costs its Note: rows read and written (the SQLite cursor's
 * counters, summed by the Note object) per call, over a known number of
 * calls made one after another on an otherwise idle Note, and the Note's
 * storage before and after.
 *
 * GET /bench/stats counts the sources and idempotency rows after reading the
 * counters, so its own reads land in the next reading. Two readings with
 * nothing between them measure that, and it is taken off:
 * calls = (after − second) − (second − first).
 */
import { noteStats, type NoteStats } from "./bench-routes.js";
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
  databaseBytesBefore: number;
  databaseBytesAfter: number;
  idempotencyBefore: number;
  idempotencyAfter: number;
  sources: number;
}

export async function measureCost(
  origin: string,
  spec: { id: string; name: string; noteId: string; calls: number },
  call: (index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<CallCost> {
  const first = await noteStats(origin, spec.noteId);
  const second = await noteStats(origin, spec.noteId);
  for (let i = 0; i < spec.calls; i++) {
    signal?.throwIfAborted();
    await call(i);
  }
  const after = await noteStats(origin, spec.noteId);
  const own = (key: keyof NoteStats): number => after[key] - second[key] - (second[key] - first[key]);
  const round = (n: number): number => Math.round(n * 100) / 100;
  return {
    ...spec,
    rowsReadPerCall: round(own("rows_read") / spec.calls),
    rowsWrittenPerCall: round(own("rows_written") / spec.calls),
    databaseBytesBefore: second.database_bytes,
    databaseBytesAfter: after.database_bytes,
    idempotencyBefore: second.idempotency_records,
    idempotencyAfter: after.idempotency_records,
    sources: after.sources,
  };
}

/** Each workload's calls made one after another on an idle Note, with the Note's counters read around them. */
export async function measureCosts(ctx: WorkloadContext, options: BenchOptions, sourceNotes: Map<number, string>, sheetNotes: Map<number, SheetNote>): Promise<CallCost[]> {
  const { api, origin, agentToken } = ctx;
  const { signal } = options;
  const n = options.costCalls;
  const costs: CallCost[] = [];
  const call = <T>(tool: string, args: Record<string, unknown>): Promise<T> => callTool<T>(origin, agentToken, tool, args);

  const deck = await createDeckNote(api, "cost-deck");
  costs.push(await measureCost(origin, { id: "list_note_tabs", name: "list_note_tabs", noteId: deck.noteId, calls: n }, () => call("list_note_tabs", { note_id: deck.noteId }).then(() => undefined), signal));

  let version = await api.createApprovedNote("cost-create");
  const slides = outline(20);
  costs.push(
    await measureCost(origin, { id: "create_note_tab", name: "create_note_tab, 20-slide outline", noteId: "cost-create", calls: Math.min(n, 100) }, async (i) => {
      const out = await call<{ version: number }>("create_note_tab", { note_id: "cost-create", expected_version: version, idempotency_key: `cost-create-${i}`, tab_type: "slides", slides });
      version = out.version;
    }, signal),
  );

  await api.createApprovedNote("cost-slide");
  const added = await addSlidesTab(api, "cost-slide", "Bench deck");
  version = added.version;
  costs.push(
    await measureCost(origin, { id: "slide_add", name: "edit_note_tab slide_add", noteId: "cost-slide", calls: Math.min(n, 500) }, async (i) => {
      const out = await call<{ version: number }>("edit_note_tab", {
        note_id: "cost-slide",
        expected_version: version,
        idempotency_key: `cost-slide-${i}`,
        tab_id: added.tabId,
        operation: "slide_add",
        title: `Slide ${i}`,
        body: "Three links the agent found after the outline.",
      });
      version = out.version;
    }, signal),
  );

  version = await api.createApprovedNote("cost-source");
  costs.push(
    await measureCost(origin, { id: "add_note_source", name: "add_note_source (a new URL each call)", noteId: "cost-source", calls: n }, async (i) => {
      const out = await call<{ version: number }>("add_note_source", {
        note_id: "cost-source",
        expected_version: version,
        idempotency_key: `cost-source-${i}`,
        title: `Annual report ${i}`,
        url: `https://example.org/reports/cost-${i}`,
        description: "Cited for the revenue figures.",
      });
      version = out.version;
    }, signal),
  );

  // The cost law on a deck and a Sheet: the same call on a small tab and on a large one.
  for (const slides of [20, UPDATE_DECK_SLIDES]) {
    const deck = await createDeckNote(api, `cost-update-${slides}`, slides);
    const slideId = deck.slideIds[Math.floor(slides / 2)];
    version = deck.version;
    costs.push(
      await measureCost(origin, { id: `slide_update_${slides}`, name: `edit_note_tab slide_update, ${slides}-slide deck`, noteId: deck.noteId, calls: n }, async (i) => {
        const out = await call<{ version: number }>("edit_note_tab", {
          note_id: deck.noteId,
          expected_version: version,
          idempotency_key: `cost-update-${i}`,
          tab_id: deck.tabId,
          operation: "slide_update",
          slide_id: slideId,
          body: `Corrected figures (${i}).`,
        });
        version = out.version;
      }, signal),
    );
  }

  // At most 49 calls of 100 rows: the Sheet of 5,000 rows stays within its limit of 10,000.
  const rows = sheetRows(ROWS_PER_APPEND);
  for (const start of [100, 5_000]) {
    const sheet = await createSheetNote(api, agentToken, `cost-rows-${start}`, start);
    version = (await call<{ version: number }>("list_note_tabs", { note_id: sheet.noteId })).version;
    const name = `edit_note_tab rows_append of ${ROWS_PER_APPEND} rows, Sheet of ${start.toLocaleString("en-US")} rows at the start`;
    costs.push(
      await measureCost(origin, { id: `rows_append_${start}`, name, noteId: sheet.noteId, calls: Math.min(n, 49) }, async (i) => {
        const out = await call<{ version: number }>("edit_note_tab", { note_id: sheet.noteId, expected_version: version, idempotency_key: `cost-rows-${i}`, tab_id: sheet.tabId, operation: "rows_append", rows });
        version = out.version;
      }, signal),
    );
  }

  for (const [count, sheet] of sheetNotes) {
    for (const deep of [false, true]) {
      const args: Record<string, unknown> = { note_id: sheet.noteId, tab_id: sheet.tabId, limit: PAGE_LIMIT };
      if (deep) args.cursor = deepRowsCursor(sheet, count);
      const id = `read_note_tab_sheet_${deep ? "deep" : "first"}_${count}`;
      const name = `read_note_tab, ${deep ? "deep page (90 %)" : "first page"} of ${PAGE_LIMIT} rows, ${count.toLocaleString("en-US")}-row Sheet`;
      costs.push(await measureCost(origin, { id, name, noteId: sheet.noteId, calls: n }, () => call("read_note_tab", args).then(() => undefined), signal));
    }
  }

  for (const [count, noteId] of sourceNotes) {
    for (const deep of [false, true]) {
      const args: Record<string, unknown> = { note_id: noteId, kind: "sources", limit: PAGE_LIMIT };
      if (deep) args.cursor = deepCursor(noteId, count);
      const id = `list_note_attachments_${deep ? "deep" : "first"}_${count}`;
      const name = `list_note_attachments, ${deep ? "deep page (90 %)" : "first page"}, ${count.toLocaleString("en-US")} sources`;
      costs.push(await measureCost(origin, { id, name, noteId, calls: n }, () => call("list_note_attachments", args).then(() => undefined), signal));
    }
  }
  return costs;
}
