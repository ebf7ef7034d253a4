/**
 * What the Worker's workerd used, read from /proc: its CPU time (utime +
 * stime) and its busiest thread's (the one running JavaScript), this process's
 * (the load generator, with Miniflare's Node side), the whole machine's, and
 * the workerd's resident memory (VmRSS).
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds of a /proc stat file (a process or a thread); null if it ended. */
function cpuSeconds(path: string): number | null {
  try {
    const stat = readFileSync(path, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** PIDs of the workerd processes whose parent is this process (Miniflare's). */
export function workerdChildren(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm === "workerd" && ppid === process.pid) found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** CPU seconds so far of the workerd, this process, the machine's cores (busy: user, nice, system, irq, softirq, steal) and the workerd's threads. */
export interface CpuSample { at: number; worker: number; bench: number; machine: number; threads: Map<string, number> }

export function sampleCpu(workerPid: number): CpuSample {
  const threads = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${workerPid}/task`)) threads.set(tid, cpuSeconds(`/proc/${workerPid}/task/${tid}/stat`) ?? 0);
  } catch {
    // The workerd ended.
  }
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  return {
    at: performance.now(),
    worker: cpuSeconds(`/proc/${workerPid}/stat`) ?? 0,
    bench: cpuSeconds("/proc/self/stat") ?? 0,
    machine: (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND,
    threads,
  };
}

/** The workerd's ms a response; its busiest thread's share of a core (1: a whole one); the cores the rest of the machine (not the bench, not its workerd) kept busy. */
export interface CpuUse { workerMs: number; workerThread: number; othersCores: number }

export function cpuUse(before: CpuSample, after: CpuSample, responses: number): CpuUse {
  const seconds = (after.at - before.at) / 1000;
  const worker = after.worker - before.worker;
  let busiest = 0;
  for (const [tid, end] of after.threads) busiest = Math.max(busiest, end - (before.threads.get(tid) ?? 0));
  const others = after.machine - before.machine - worker - (after.bench - before.bench);
  return {
    workerMs: responses > 0 ? (worker * 1000) / responses : 0,
    workerThread: seconds > 0 ? busiest / seconds : 0,
    othersCores: seconds > 0 ? Math.max(0, others / seconds) : 0,
  };
}

/** VmRSS of a process, in bytes. */
export function rssBytes(pid: number): number {
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb ?? 0) * 1024;
}
