/**
 * The Worker's JavaScript heap, read through the DevTools inspector Miniflare
 * opens for it: a heap snapshot first (V8 runs a full collection before it
 * takes one; the snapshot itself is thrown away), then `Runtime.getHeapUsage`.
 * What is left is what the Worker's code still holds, which tells a leak in
 * the code from memory the runtime keeps.
 */
import WebSocket from "ws";

export interface HeapUsage {
  /** Bytes of live objects after the collection. */
  usedBytes: number;
  /** Bytes V8 has reserved for the heap. */
  totalBytes: number;
}

/** Reads the heap of the Worker behind the inspector's WebSocket `url`; gives up after `timeoutMs`. */
export async function workerHeap(url: string, timeoutMs = 30_000): Promise<HeapUsage> {
  const socket = new WebSocket(url);
  const timer = setTimeout(() => socket.terminate(), timeoutMs);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    let nextId = 0;
    const call = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        const onMessage = (data: WebSocket.RawData): void => {
          const reply = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
          if (reply.id !== id) return; // the snapshot's chunks, and other events
          socket.off("message", onMessage);
          if (reply.error === undefined) resolve(reply.result ?? {});
          else reject(new Error(`${method}: ${reply.error.message}`));
        };
        socket.on("message", onMessage);
        socket.once("close", () => reject(new Error(`the inspector closed during ${method} (timed out after ${timeoutMs} ms?)`)));
        socket.send(JSON.stringify({ id, method, params }));
      });
    await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const usage = await call("Runtime.getHeapUsage");
    return { usedBytes: Number(usage.usedSize), totalBytes: Number(usage.totalSize) };
  } finally {
    clearTimeout(timer);
    socket.terminate();
  }
}
