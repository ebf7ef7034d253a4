/**
 * CPU time of this process and of every process under the server, from
 * /proc/<pid>/stat (utime + stime): sampled before and after a run, it shows
 * where a request's time goes — the load generator, wrangler's Node process,
 * the proxy workerd, the Worker's workerd (under Miniflare, only the last:
 * Miniflare's own Node side runs in this process, with the load generator). Each workerd's threads are sampled
 * too (/proc/<pid>/task): workerd runs the JavaScript on one thread, so that
 * thread's share of a core says whether it was the bottleneck.
 */
import { readdirSync, readFileSync } from "node:fs";
import { runsTheWorker, serverProcesses } from "./process-memory.js";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuSample {
  /** CPU seconds the whole machine was busy, all cores (/proc/stat). */
  machine: number;
  /** CPU seconds by process label. */
  processes: Map<string, number>;
  /** CPU seconds by "label:tid", for the workerd processes' threads. */
  threads: Map<string, number>;
}

export function cpuSeconds(path: string): number | null {
  try {
    const stat = readFileSync(path, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

function label(pid: number, comm: string, workerds: number): string {
  if (comm !== "workerd") return comm === "node" ? "wrangler (node)" : comm;
  return runsTheWorker(pid, workerds) ? "workerd (Worker)" : "workerd (proxy)";
}

/** CPU seconds so far: the load generator ("bench (node, autocannon)"), the server's processes, the workerd threads. */
export function sampleCpu(serverPid: number): CpuSample {
  const processes = new Map<string, number>();
  const threads = new Map<string, number>();
  const add = (name: string, seconds: number | null): void => {
    if (seconds !== null) processes.set(name, (processes.get(name) ?? 0) + seconds);
  };
  add("bench (node, autocannon)", cpuSeconds("/proc/self/stat"));
  const server = serverProcesses(serverPid);
  const workerds = server.filter((p) => p.comm === "workerd").length;
  for (const p of server) {
    const name = label(p.pid, p.comm, workerds);
    add(name, cpuSeconds(`/proc/${p.pid}/stat`));
    if (p.comm !== "workerd") continue;
    try {
      for (const tid of readdirSync(`/proc/${p.pid}/task`)) {
        const seconds = cpuSeconds(`/proc/${p.pid}/task/${tid}/stat`);
        if (seconds !== null) threads.set(`${name}:${tid}`, seconds);
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return { machine: machineBusySeconds(), processes, threads };
}

/** Busy time of all cores so far: user, nice, system, irq, softirq, steal from /proc/stat's first line. */
function machineBusySeconds(): number {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Cores that processes outside the benchmark kept busy between two samples (other work on a shared machine). */
export function othersCores(before: CpuSample, after: CpuSample, seconds: number): number {
  if (seconds <= 0) return 0;
  let ours = 0;
  for (const [name, end] of after.processes) ours += end - (before.processes.get(name) ?? 0);
  const others = after.machine - before.machine - ours;
  return Math.max(0, Math.round((others / seconds) * 100) / 100);
}

/** CPU milliseconds per request, by process, between two samples. */
export function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, end] of after.processes) {
    const used = end - (before.processes.get(name) ?? 0);
    if (used > 0 && requests > 0) out[name] = Math.round((used * 1000 * 1000) / requests) / 1000;
  }
  return out;
}

/** For each workerd, the share of one core its busiest thread used between two samples (1 = a whole core). */
export function busiestThreads(before: CpuSample, after: CpuSample, seconds: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, end] of after.threads) {
    const name = key.slice(0, key.lastIndexOf(":"));
    const share = seconds > 0 ? (end - (before.threads.get(key) ?? 0)) / seconds : 0;
    out[name] = Math.max(out[name] ?? 0, Math.round(share * 100) / 100);
  }
  return out;
}
