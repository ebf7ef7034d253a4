/**
 * Idempotency records are kept for the retention and then pruned by the
 * Note's alarm. On a server started with a retention of a few seconds
 * (IDEMPOTENCY_RETENTION_SECONDS), this commits some writes and watches the
 * Note's record count fall to zero — or reports that the alarm did not fire
 * under wrangler dev.
 */
import { readFileSync } from "node:fs";
import { noteStats } from "./bench-routes.js";
import type { BenchServer } from "./bench-server.js";
import { callTool } from "./mcp-call.js";

export interface RetentionReport {
  retentionSeconds: number;
  writes: number;
  /** Idempotency records right after the writes. */
  recordsAfterWrites: number;
  /** Records when the watch ended. */
  recordsAtEnd: number;
  /** Seconds from the first write until the records were gone; null if they never went within the watch. */
  prunedAfterSec: number | null;
  /** How long the watch lasted at most, in seconds. */
  watchedSec: number;
  /** Each change of the record count: seconds after the first write, records then. */
  changes: { sec: number; records: number }[];
}

export async function checkRetention(bench: BenchServer, retentionSeconds: number, signal?: AbortSignal): Promise<RetentionReport> {
  const noteId = "retention";
  let version = await bench.api.createApprovedNote(noteId);
  const writes = 10;
  const firstWrite = Date.now();
  for (let i = 0; i < writes; i++) {
    const out = await callTool<{ version: number }>(bench.origin, bench.agentToken, "add_note_source", {
      note_id: noteId,
      expected_version: version,
      idempotency_key: `retention-${i}`,
      title: `Source ${i}`,
      url: `https://example.org/retention/${i}`,
    });
    version = out.version;
  }
  const recordsAfterWrites = (await noteStats(bench.origin, noteId)).idempotency_records;
  const since = (): number => Math.round((Date.now() - firstWrite) / 100) / 10;
  const changes = [{ sec: since(), records: recordsAfterWrites }];
  const watchedSec = retentionSeconds + 12;
  let records = recordsAfterWrites;
  let prunedAfterSec: number | null = null;
  while (Date.now() - firstWrite < watchedSec * 1000) {
    signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = (await noteStats(bench.origin, noteId)).idempotency_records;
    if (now !== records) changes.push({ sec: since(), records: now });
    records = now;
    if (records === 0) {
      prunedAfterSec = since();
      break;
    }
  }
  return { retentionSeconds, writes, recordsAfterWrites, recordsAtEnd: records, prunedAfterSec, watchedSec, changes };
}

/** IDEMPOTENCY_RETENTION_SECONDS from wrangler.toml's [vars] (the main run does not override it). */
export function configuredRetentionSeconds(): number {
  const toml = readFileSync(new URL("../wrangler.toml", import.meta.url), "utf8");
  return Number(/^IDEMPOTENCY_RETENTION_SECONDS\s*=\s*"(\d+)"/m.exec(toml)?.[1] ?? Number.NaN);
}
