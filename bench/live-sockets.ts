/**
 * What open live sockets cost a Note's writes: slide_add, one writer, on three
 * deck Notes alike but for the 0, 10 and 100 live sockets open on them (held
 * by live-clients.ts, a process of its own), in turn (twice the comparisons'
 * rounds, slices of half a load, after one round not counted), each read
 * against the Note with none. Then every socket must have every change, in order.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { signIn } from "../scripts/lib/sign-in.js";
import { createDeckNote } from "./fixtures.js";
import type { SocketTally } from "./live-clients.js";
import { errorCount, runLoad } from "./load.js";
import type { BenchOptions } from "./options.js";
import { sampleCpu } from "./proc.js";
import type { BenchServer } from "./server.js";
import { slideAddOneNote, type WorkloadContext } from "./workloads.js";

export const SOCKET_COUNTS = [0, 10, 100] as const;

export interface LiveSocketsRow {
  sockets: number;
  noteId: string;
  responses: number;
  seconds: number;
  throughput: number;
  /** Throughput over the Note's with no socket. */
  ratio: number;
  errors: number;
  firstFailure?: string;
  /** CPU milliseconds per write: the Worker's workerd (the Note object sends from there), and the process holding the sockets. */
  cpuMsPerWrite: { worker: number; clients: number };
  /** Changes each socket received (the fewest, the most), and the Note's versions they should cover. */
  changesPerSocket: { min: number; max: number } | null;
  /** Whether every socket received every change of its Note exactly once, in order, and is still open. */
  delivered: boolean | null;
}

export interface LiveSocketsReport {
  slices: number;
  sliceSec: number;
  rows: LiveSocketsRow[];
}

const CLIENTS = fileURLToPath(new URL("./live-clients.ts", import.meta.url));

export async function measureLiveSockets(bench: BenchServer, ctx: WorkloadContext, options: BenchOptions): Promise<LiveSocketsReport> {
  const { signal } = options;
  const slices = options.rounds * 2;
  const sliceSec = options.durationSec / 2;
  const decks = await Promise.all(SOCKET_COUNTS.map((n) => createDeckNote(ctx.api, `live-${n}`)));
  const workloads = decks.map((deck) => slideAddOneNote(ctx, deck));
  const app = await signIn({ origin: ctx.origin, user: "alice", scopes: ["osfoundry:app"], resource: "api" });
  const clients = await startClients(ctx.origin, app.access_token, decks.map((deck, i) => `${deck.noteId}:${SOCKET_COUNTS[i]}`));
  try {
    const totals = SOCKET_COUNTS.map(() => ({ responses: 0, seconds: 0, errors: 0, firstFailure: undefined as string | undefined, cpu: { worker: 0, clients: 0 } }));
    // One slice each not counted: the sockets' first broadcasts and the lanes' first versions.
    for (let i = -1; i < slices; i++) {
      for (const [k, workload] of workloads.entries()) {
        signal?.throwIfAborted();
        const rate = (totals[k]?.seconds ?? 0) > 0 ? (totals[k]?.responses ?? 0) / (totals[k]?.seconds ?? 1) : 300;
        await workload.provision?.(Math.max(rate, 300) * sliceSec * 3);
        const before = { server: sampleCpu(bench.pid), clients: sampleCpu(clients.pid) };
        const result = await runLoad({ origin: bench.origin, connections: 1, durationSec: sliceSec, amount: options.loadCalls, requests: workload.requests(), accept: workload.accept, signal });
        const after = { server: sampleCpu(bench.pid), clients: sampleCpu(clients.pid) };
        const total = totals[k];
        if (i < 0 || total === undefined) continue;
        total.cpu.worker += after.server.worker - before.server.worker;
        total.cpu.clients += after.clients.worker - before.clients.worker;
        total.responses += result.responses;
        total.seconds += result.seconds;
        total.errors += errorCount(result);
        total.firstFailure ??= result.firstFailure;
      }
    }
    const versions = Object.fromEntries(await Promise.all(decks.map(async (deck) => [deck.noteId, await noteVersion(ctx, deck.noteId)] as const)));
    const tallies = await clients.report(versions);
    const throughputs = totals.map((t) => (t.seconds > 0 ? t.responses / t.seconds : 0));
    const rows: LiveSocketsRow[] = [];
    for (const [k, sockets] of SOCKET_COUNTS.entries()) {
      const deck = decks[k] as (typeof decks)[number];
      const total = totals[k] as (typeof totals)[number];
      const version = versions[deck.noteId];
      const mine = tallies.filter((t) => t.noteId === deck.noteId);
      const counts = mine.map((t) => t.changes);
      const row: LiveSocketsRow = {
        sockets,
        noteId: deck.noteId,
        responses: total.responses,
        seconds: total.seconds,
        throughput: throughputs[k] ?? 0,
        ratio: (throughputs[0] ?? 0) > 0 ? (throughputs[k] ?? 0) / (throughputs[0] as number) : 0,
        errors: total.errors,
        cpuMsPerWrite: {
          worker: perWrite(total.cpu.worker, total.responses),
          clients: perWrite(total.cpu.clients, total.responses),
        },
        changesPerSocket: counts.length === 0 ? null : { min: Math.min(...counts), max: Math.max(...counts) },
        delivered: mine.length === 0 ? null : mine.length === sockets && mine.every((t) => t.closed === null && t.outOfOrder === 0 && t.last === version && t.changes === t.last - t.first),
      };
      if (total.firstFailure !== undefined) row.firstFailure = total.firstFailure;
      rows.push(row);
    }
    return { slices, sliceSec, rows };
  } finally {
    clients.stop();
  }
}

const perWrite = (seconds: number, writes: number): number => (writes > 0 ? Math.round((seconds * 1e6) / writes) / 1000 : 0);

async function noteVersion(ctx: WorkloadContext, noteId: string): Promise<number> {
  const answer = await ctx.api.request("GET", `/notes/${noteId}/changes?since_version=0&limit=1`);
  return (answer.body as { version: number }).version;
}

interface Clients {
  pid: number;
  /** What each socket received, once it has its Note's version (`versions`, by Note). */
  report(versions: Record<string, number>): Promise<SocketTally[]>;
  stop(): void;
}

/** Starts live-clients.ts and waits until every socket has its snapshot. */
async function startClients(origin: string, token: string, specs: string[]): Promise<Clients> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["--import", "tsx", CLIENTS, origin, token, ...specs], { stdio: ["pipe", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  lines.on("line", (line) => waiting.shift()?.(line));
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      waiting.push(resolve);
      child.once("exit", (code) => reject(new Error(`live-clients.ts exited with ${code}: ${stderr.trim().slice(0, 300)}`)));
    });
  try {
    const ready = JSON.parse(await next()) as { ready?: boolean };
    if (ready.ready !== true) throw new Error("live-clients.ts did not get ready");
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    pid: child.pid as number,
    async report(versions) {
      child.stdin.write(`report ${JSON.stringify(versions)}\n`);
      return (JSON.parse(await next()) as { tallies: SocketTally[] }).tallies;
    },
    stop() {
      child.stdin.end();
    },
  };
}
