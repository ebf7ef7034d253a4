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
import { addSlidesTab, createDeckNote, deepCursor, outline, PAGE_LIMIT } from "./fixtures.js";
import { callTool } from "./mcp-call.js";
import type { BenchOptions } from "./options.js";
import type { WorkloadContext } from "./workloads.js";

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
export async function measureCosts(ctx: WorkloadContext, options: BenchOptions, sourceNotes: Map<number, string>): Promise<CallCost[]> {
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
