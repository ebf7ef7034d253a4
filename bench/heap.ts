/**
 * The Worker's JavaScript heap, read through the DevTools inspector that
 * `wrangler dev` or Miniflare opens for it: a heap snapshot first (V8 runs a full garbage
 * collection before taking one; the snapshot itself is thrown away), then
 * `Runtime.getHeapUsage`. What is left is what the Worker's code still holds,
 * which tells a leak in the code from memory the runtime keeps.
 */
import { openInspector } from "./inspector.js";

export interface HeapUsage {
  /** Bytes of live objects after the collection. */
  usedBytes: number;
  /** Bytes V8 has reserved for the heap. */
  totalBytes: number;
}

/** Reads the heap of the Worker behind the inspector's WebSocket `url`; gives up after `timeoutMs`. */
export async function workerHeap(url: string, timeoutMs = 30_000): Promise<HeapUsage> {
  const inspector = await openInspector(url, timeoutMs);
  try {
    await inspector.call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const usage = await inspector.call("Runtime.getHeapUsage");
    return { usedBytes: Number(usage.usedSize), totalBytes: Number(usage.totalSize) };
  } finally {
    inspector.close();
  }
}
