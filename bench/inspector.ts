/**
 * A DevTools protocol session with the Worker's inspector (the one `wrangler
 * dev` or Miniflare opens for it): one WebSocket, calls answered by ID, and
 * every call given up when the socket closes or `timeoutMs` has passed.
 */
import WebSocket from "ws";

export interface InspectorSession {
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): void;
}

interface Reply {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message: string };
}

/** Opens a session with the inspector at `url`; the socket is closed after `timeoutMs` whatever happens. */
export async function openInspector(url: string, timeoutMs: number): Promise<InspectorSession> {
  const socket = new WebSocket(url);
  const timer = setTimeout(() => socket.terminate(), timeoutMs);
  const close = (): void => {
    clearTimeout(timer);
    socket.terminate();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
      socket.once("close", () => reject(new Error(`the inspector at ${url} closed before it opened`)));
    });
  } catch (error) {
    close();
    throw error;
  }
  const replies = new Map<number, (reply: Reply) => void>();
  socket.on("message", (data) => {
    const reply = JSON.parse(String(data)) as Reply;
    if (reply.id !== undefined) replies.get(reply.id)?.(reply);
  });
  let nextId = 0;
  const call = (method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      replies.set(id, (reply) => (reply.error === undefined ? resolve(reply.result ?? {}) : reject(new Error(`${method}: ${reply.error.message}`))));
      socket.once("close", () => reject(new Error(`the inspector closed during ${method} (timed out after ${timeoutMs} ms?)`)));
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close };
}
