/**
 * Resident memory of the workerd processes a local server started: found by
 * walking /proc/<pid>/stat's parent links down from the server's PID
 * (wrangler dev: npx → wrangler → workerd; Miniflare: the workerd itself),
 * read from /proc/<pid>/status (VmRSS). wrangler dev runs two workerd
 * processes: the user-facing proxy and the one that runs the Worker and its
 * Durable Objects; Miniflare runs one, the Worker's.
 */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessMemory {
  pid: number;
  /** The process's command line, shortened. */
  command: string;
  /** VmRSS in bytes. */
  rssBytes: number;
}

export interface ProcEntry {
  pid: number;
  ppid: number;
  comm: string;
}

function processes(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name sits in parentheses and may itself contain spaces or parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const open = stat.indexOf("(");
      const close = stat.lastIndexOf(")");
      const rest = stat.slice(close + 2).split(" ");
      entries.push({ pid: Number(name), comm: stat.slice(open + 1, close), ppid: Number(rest[1]) });
    } catch {
      // The process ended while we looked.
    }
  }
  return entries;
}

/** Every process descended from `root` (not `root` itself). */
export function descendants(root: number): ProcEntry[] {
  const all = processes();
  const found = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!found.has(p.pid) && found.has(p.ppid)) {
        found.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => p.pid !== root && found.has(p.pid));
}

/**
 * The server's processes: those descended from `root`, and `root` itself when
 * it is a workerd (Miniflare's, which starts nothing; wrangler dev's root is
 * npx, left out as before).
 */
export function serverProcesses(root: number): ProcEntry[] {
  const all = descendants(root);
  const self = processes().find((p) => p.pid === root && p.comm === "workerd");
  return self === undefined ? all : [self, ...all];
}

/** VmRSS of each workerd of the server at `root`, in PID order. */
export function workerdMemory(root: number): ProcessMemory[] {
  const workerds = serverProcesses(root).filter((p) => p.comm === "workerd");
  return workerds
    .sort((a, b) => a.pid - b.pid)
    .flatMap((p) => {
      try {
        const status = readFileSync(`/proc/${p.pid}/status`, "utf8");
        const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
        const command = runsTheWorker(p.pid, workerds.length) ? "workerd (Worker, Durable Objects)" : "workerd (wrangler's proxy)";
        return kb === undefined ? [] : [{ pid: p.pid, command, rssBytes: Number(kb) * 1024 }];
      } catch {
        return [];
      }
    });
}

/**
 * Whether a server's workerd (one of `workerds`) runs the Worker: on Miniflare
 * the only one; under wrangler dev the one with the inspector (the proxy in front has none).
 */
export function runsTheWorker(pid: number, workerds: number): boolean {
  if (workerds === 1) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--inspector-addr");
  } catch {
    return false;
  }
}

export function totalRss(memory: readonly ProcessMemory[]): number {
  return memory.reduce((sum, p) => sum + p.rssBytes, 0);
}
