/**
 * A host page for the deck preview's browser test (bundled by it with esbuild):
 * ext-apps' own `AppBridge` on this side, the View in a sandboxed frame, as a
 * chat client shows an MCP App. The test drives it through `window.deckHost`.
 */
import { AppBridge, PostMessageTransport, type McpUiHostCapabilities } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolRequest, CallToolResult } from "@modelcontextprotocol/client";

export interface DeckHost {
  /** Loads the View's HTML and waits for its `initialized`. The View may call tools when `capabilities.serverTools` is set. */
  start(html: string, capabilities: McpUiHostCapabilities): Promise<void>;
  /** The answers to the View's tool calls, in order; a call past the last is refused. */
  answers: CallToolResult[];
  /** The tool calls the View asked the host for, in order. */
  calls: CallToolRequest["params"][];
  sendToolInput(args: Record<string, unknown>): Promise<void>;
  sendToolResult(result: CallToolResult): Promise<void>;
  /** The View's last size-changed height, or null. */
  height: number | null;
}

const host: DeckHost = {
  answers: [],
  calls: [],
  height: null,
  async start(html, capabilities) {
    const frame = document.createElement("iframe");
    frame.id = "view";
    // Scripts, and modals so that an alert the View let through would show as a dialog; no same-origin, as hosts do.
    frame.setAttribute("sandbox", "allow-scripts allow-modals");
    document.body.append(frame);
    const view = frame.contentWindow as Window;
    const bridge = new AppBridge(null, { name: "deck-preview-test-host", version: "1.0.0" }, capabilities, { hostContext: { theme: "light", displayMode: "inline" } });
    if (capabilities.serverTools !== undefined) {
      bridge.oncalltool = async (params) => {
        host.calls.push(params);
        const answer = host.answers.shift();
        if (answer === undefined) throw new Error("the test host has no answer for this call");
        return answer;
      };
    }
    bridge.onsizechange = ({ height }) => {
      if (height !== undefined) host.height = height;
    };
    const initialized = new Promise<void>((resolve) => {
      bridge.oninitialized = () => resolve();
    });
    await bridge.connect(new PostMessageTransport(view, view));
    frame.srcdoc = html;
    await initialized;
    host.sendToolInput = (args) => bridge.sendToolInput({ arguments: args });
    host.sendToolResult = (result) => bridge.sendToolResult(result);
  },
  sendToolInput: () => Promise.reject(new Error("start first")),
  sendToolResult: () => Promise.reject(new Error("start first")),
};

Object.assign(window, { deckHost: host });
