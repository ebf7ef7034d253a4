/**
 * @module
 * The View's side of MCP Apps' postMessage channel: JSON-RPC 2.0 with the
 * host window only. ext-apps' `App` speaks the same protocol, but bundled it
 * weighs over 400 KB (its zod and MCP client), and the Worker carries this
 * page in its bundle; the MCP Apps specification says a View needs no SDK, and the browser test
 * drives this one with ext-apps' own `AppBridge`. The messages are typed with
 * ext-apps' spec types (types only: nothing of ext-apps is bundled).
 */
import type {
  McpUiHostContext,
  McpUiInitializedNotification,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiSizeChangedNotification,
  McpUiToolCancelledNotification,
  McpUiToolInputNotification,
  McpUiToolResultNotification,
} from "@modelcontextprotocol/ext-apps";
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/server";

/** The notifications the View listens to, by method. */
interface Notifications {
  "ui/notifications/tool-input": McpUiToolInputNotification["params"];
  "ui/notifications/tool-result": McpUiToolResultNotification["params"];
  "ui/notifications/tool-cancelled": McpUiToolCancelledNotification["params"];
  "ui/notifications/host-context-changed": McpUiHostContext;
}

/** The requests the View sends, with their results. */
interface Requests {
  "ui/initialize": [McpUiInitializeRequest["params"], McpUiInitializeResult];
  "tools/call": [CallToolRequest["params"], CallToolResult];
}

/** The MCP Apps revision this View speaks: ext-apps 2.0.4's LATEST_PROTOCOL_VERSION (test/e2e/deck-preview-html.test.ts compares them). */
export const APPS_PROTOCOL_VERSION = "2026-01-26";

type Sent = McpUiInitializedNotification | McpUiSizeChangedNotification;

/** The host's requests a View answers: both are answered `{}` (the preview keeps no state to save). */
const ANSWERED = new Set(["ping", "ui/resource-teardown"]);

export class Host {
  readonly #window: Window;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  readonly #listeners = new Map<string, (params: unknown) => void>();

  /** Listens to `host` (the parent window) alone: a message from any other window is ignored. */
  constructor(host: Window) {
    this.#window = host;
    addEventListener("message", (event) => {
      if (event.source === host) this.#receive(event.data);
    });
  }

  on<M extends keyof Notifications>(method: M, listener: (params: Notifications[M]) => void): void {
    this.#listeners.set(method, listener as (params: unknown) => void);
  }

  request<M extends keyof Requests>(method: M, params: Requests[M][0]): Promise<Requests[M][1]> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.#post({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(message: Sent): void {
    this.#post({ jsonrpc: "2.0", ...message });
  }

  #post(message: object): void {
    this.#window.postMessage(message, "*");
  }

  #receive(data: unknown): void {
    if (typeof data !== "object" || data === null || (data as { jsonrpc?: unknown }).jsonrpc !== "2.0") return;
    const message = data as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: { message?: unknown } };
    if (typeof message.method === "string") {
      if (message.id === undefined) this.#listeners.get(message.method)?.(message.params ?? {});
      else if (ANSWERED.has(message.method)) this.#post({ jsonrpc: "2.0", id: message.id, result: {} });
      else this.#post({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
      return;
    }
    const pending = typeof message.id === "number" ? this.#pending.get(message.id) : undefined;
    if (pending === undefined) return;
    this.#pending.delete(message.id as number);
    if (message.error !== undefined) pending.reject(new Error(typeof message.error.message === "string" ? message.error.message : "the host refused"));
    else pending.resolve(message.result);
  }
}
