/**
 * One Note's write ceiling: the most commits a second one Note takes from 1
 * writer and from 8, each running the documented retry loop. Writer i corrects
 * slide i of a 20-slide deck with a fresh key an intent; on `version_conflict`
 * it re-reads (`list_note_tabs`) and resends the same call and key at the
 * version read, or (third row) resends at `current_version` when the
 * conflict's `changes` are complete and spare its slide.
 */
import type autocannon from "autocannon";
import { createDeckNote } from "./fixtures.js";
import { errorCount, runLoad } from "./load.js";
import { callTool, isCommittedWrite, isMcpError, MCP_PATH, mcpHeaders, toolCallBody, versionIn } from "./mcp-call.js";
import type { BenchOptions } from "./options.js";
import { cpuUse, sampleCpu } from "./proc.js";
import type { BenchServer } from "./server.js";
import type { WorkloadContext } from "./workloads.js";

/** How a writer answers a conflict: always re-read, or re-read only when the conflict's changes say it must. */
export type Retry = "reread" | "changes";

export const CEILING_RUNS: readonly { writers: number; retry: Retry }[] = [
  { writers: 1, retry: "reread" },
  { writers: 8, retry: "reread" },
  { writers: 8, retry: "changes" },
];

export interface CeilingRow {
  writers: number;
  retry: Retry;
  seconds: number;
  /** Writes that committed (each intent once: a resent key that replays is not counted twice). */
  commits: number;
  commitsPerSecond: number;
  /** Writes refused with version_conflict, and the re-reads they caused. */
  conflicts: number;
  rereads: number;
  /** Any other failure: a non-2xx, a socket error, an MCP error that is not a conflict, a replay. */
  errors: number;
  firstFailure?: string;
  /** Calls of each writer, latency of all calls, ms. */
  p50: number;
  p99: number;
  /** The Worker's workerd CPU per commit, ms (conflicts and re-reads included: that is what a commit costs). */
  workerCpuMsPerCommit: number;
  /** The Worker's busiest thread (JavaScript, the Note's object included) over the run: 1.00 is a whole core. */
  workerThreadCores: number;
}

const isConflict = (body: string): boolean => body.includes("version_conflict");
/** The first result of this very call, resent with its key: it committed when first sent. */
const isFirstResult = (body: string): boolean => !isMcpError(body) && body.includes('"replayed":true') && body.includes('"arguments_differ":false');

interface Writer {
  mode: "write" | "read";
  version: number;
  /** The writer's intents so far: intent n is sent with key `${run}-w${writer}-${n}` until it commits. */
  intent: number;
}

interface Conflict {
  current_version?: number;
  changes?: { slide_ids?: string[]; ids_omitted?: number }[];
  changes_complete?: boolean;
}

/** The version to resend at without re-reading, when the conflict's changes are all known and none touched `slideId`; else null. */
function retryAt(body: string, slideId: string): number | null {
  // A tool error is its text: `{"error": {…}}`.
  const parsed = JSON.parse(body) as { result?: { content?: { text?: string }[] } };
  const conflict = (JSON.parse(parsed.result?.content?.[0]?.text ?? "{}") as { error?: Conflict }).error;
  if (conflict?.current_version === undefined || conflict.changes_complete !== true) return null;
  const touched = (conflict.changes ?? []).some((change) => change.ids_omitted !== undefined || change.slide_ids === undefined || change.slide_ids.includes(slideId));
  return touched ? null : conflict.current_version;
}

/** The request one run's connections share: connection i is writer i, on slide i. */
function writersRequest(ctx: WorkloadContext, noteId: string, tabId: string, slideIds: readonly string[], run: string, start: number, retry: Retry, tally: CeilingRow): autocannon.Request {
  // autocannon clears a connection's context after each pass over its requests: the writers live here, by slot.
  const writers: Writer[] = [];
  const headers = mcpHeaders(ctx.agentToken);
  return {
    method: "POST",
    path: MCP_PATH,
    headers,
    slot: { writer: -1 },
    setupRequest: (request, context) => {
      const slot = request.slot as { writer: number };
      if (slot.writer < 0) {
        slot.writer = writers.length;
        writers.push({ mode: "write", version: start, intent: 0 });
      }
      const writer = writers[slot.writer] as Writer;
      context.writer = writer;
      const slideId = slideIds[slot.writer % slideIds.length] as string;
      context.slideId = slideId;
      request.body =
        writer.mode === "read"
          ? toolCallBody("list_note_tabs", { note_id: noteId })
          : toolCallBody("edit_note_tab", {
              note_id: noteId,
              expected_version: writer.version,
              idempotency_key: `${run}-w${slot.writer}-${writer.intent}`,
              tab_id: tabId,
              operation: "slide_update",
              slide_id: slideId,
              // A body no earlier run wrote: an update that changes nothing would keep the version.
              body: `Corrected by writer ${slot.writer}, intent ${writer.intent} of ${run}.`,
            });
      return request;
    },
    onResponse: (status, body, context) => {
      const writer = context.writer as Writer | undefined;
      if (writer === undefined || status !== 200) return;
      const version = versionIn(body);
      if (writer.mode === "read") {
        tally.rereads += 1;
        if (version !== null) writer.version = version;
        writer.mode = "write";
      } else if (isConflict(body)) {
        tally.conflicts += 1;
        const at = retry === "changes" ? retryAt(body, context.slideId as string) : null;
        if (at === null) writer.mode = "read";
        else writer.version = at;
      } else if (isCommittedWrite(body) || isFirstResult(body)) {
        // A replay is the first result of an intent whose answer was lost (a timeout): it committed once, then.
        tally.commits += 1;
        if (version !== null) writer.version = version;
        writer.intent += 1;
      }
    },
  };
}

/** A response the loop expects: a commit, a conflict, or a re-read's answer. */
const expected = (body: string): boolean => isCommittedWrite(body) || isFirstResult(body) || isConflict(body) || (body.includes('"tabs"') && !isMcpError(body));

export async function measureNoteCeiling(bench: BenchServer, ctx: WorkloadContext, options: BenchOptions): Promise<CeilingRow[]> {
  const rows: CeilingRow[] = [];
  for (const { writers, retry } of CEILING_RUNS) {
    options.signal?.throwIfAborted();
    // A Note of its own per row, so one row's history does not weigh on the next.
    const deck = await createDeckNote(ctx.api, `ceiling-${writers}-${retry}`);
    const run = async (durationSec: number, label: string): Promise<CeilingRow> => {
      const { version } = await callTool<{ version: number }>(ctx.origin, ctx.agentToken, "list_note_tabs", { note_id: deck.noteId });
      const tally: CeilingRow = { writers, retry, seconds: 0, commits: 0, commitsPerSecond: 0, conflicts: 0, rereads: 0, errors: 0, p50: 0, p99: 0, workerCpuMsPerCommit: 0, workerThreadCores: 0 };
      const request = writersRequest(ctx, deck.noteId, deck.tabId, deck.slideIds, `ceiling-${writers}-${retry}-${label}`, version, retry, tally);
      const before = sampleCpu(bench.pid);
      const amount = options.loadCalls === undefined ? undefined : options.loadCalls * writers;
      const result = await runLoad({ origin: bench.origin, connections: writers, durationSec, amount, requests: [request], accept: expected, signal: options.signal });
      const cpu = cpuUse(before, sampleCpu(bench.pid), tally.commits);
      Object.assign(tally, {
        seconds: result.seconds,
        errors: errorCount(result),
        p50: result.p50,
        p99: result.p99,
        commitsPerSecond: result.seconds > 0 ? tally.commits / result.seconds : 0,
        workerCpuMsPerCommit: cpu.workerMs,
        workerThreadCores: cpu.workerThread,
      });
      if (result.firstFailure !== undefined) tally.firstFailure = result.firstFailure;
      return tally;
    };
    await run(options.warmupSec, "warm");
    const row = await run(options.durationSec, "timed");
    options.log(
      `[bench] one Note, ${writers} writer(s), ${retry === "reread" ? "re-read on conflict" : "re-read only if the changes touched the slide"}: ${Math.round(row.commitsPerSecond)} commits/s, ${row.conflicts} conflicts, ${row.rereads} re-reads, ` +
        `${row.workerCpuMsPerCommit.toFixed(2)} ms Worker CPU a commit${row.errors > 0 ? `, ${row.errors} ERRORS (${row.firstFailure ?? "?"})` : ""}`,
    );
    rows.push(row);
  }
  return rows;
}
