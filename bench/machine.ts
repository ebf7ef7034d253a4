/** The facts of the machine a run measured: CPU, cores, memory, Node, wrangler, miniflare and workerd. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, totalmem } from "node:os";

export interface MachineFacts {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  wrangler: string;
  miniflare: string;
  workerd: string;
  autocannon: string;
  platform: string;
}

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export function machineFacts(): MachineFacts {
  let cpu = cpus()[0]?.model ?? "unknown";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpu;
  } catch {
    // Not Linux: os.cpus() said it.
  }
  return {
    cpu,
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    wrangler: packageVersion("wrangler"),
    miniflare: packageVersion("miniflare"),
    workerd: packageVersion("workerd"),
    autocannon: packageVersion("autocannon"),
    platform: `${process.platform} ${process.arch}`,
  };
}
