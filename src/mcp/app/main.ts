/**
 * @module
 * The deck preview, an MCP App View (built into src/mcp/generated/deck-preview-html.ts
 * by `npm run build:app`; served as the `ui://` resource of src/mcp/deck-preview.ts).
 * It shows the deck a create_note_tab, edit_note_tab or read_note_tab call
 * touched: a read's slides as they come; after a write, the deck read back
 * through the host (read_note_tab, every page), or a create's outline when
 * the host will not. It makes no request of its own: no network at all.
 */
import type { McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { previewOfInput, readDeck, stepOfResult, WAITING, type Preview } from "./deck.js";
import { APPS_PROTOCOL_VERSION, Host } from "./host.js";
import { previewElement } from "./render.js";

const root = document.getElementById("preview") as HTMLElement;
const host = new Host(window.parent);
/** The call's arguments, when the host sent them (before its result). */
let args: unknown = undefined;
/** Counts what was shown: a read back that answers after a newer result must not cover it. */
let shown = 0;

function show(preview: Preview): number {
  root.replaceChildren(previewElement(document, preview));
  return ++shown;
}

host.on("ui/notifications/tool-input", (params) => {
  args = params.arguments;
  show(previewOfInput(args) ?? WAITING);
});

host.on("ui/notifications/tool-result", async (result) => {
  const step = stepOfResult(result, args);
  if ("show" in step) {
    show(step.show);
    return;
  }
  const mine = show(step.meanwhile);
  const preview = await readDeck(async (readArgs) => host.request("tools/call", { name: "read_note_tab", arguments: readArgs }), step.read).catch(
    () => step.fallback,
  );
  if (mine === shown) show(preview);
});

host.on("ui/notifications/tool-cancelled", () => {
  show({ kind: "message", text: "The call was cancelled: no deck to show." });
});

host.on("ui/notifications/host-context-changed", applyContext);

/** The host's theme and style variables (MCP Apps' standard names; style.css falls back on its own). */
function applyContext(context: McpUiHostContext): void {
  const html = document.documentElement;
  if (context.theme !== undefined) html.dataset.theme = context.theme;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith("--") && typeof value === "string") html.style.setProperty(name, value);
  }
}

/** Tells the host the content's size whenever it changes, so an inline frame fits the deck. */
function reportSize(): void {
  let last = "";
  const measure = (): void => {
    const html = document.documentElement;
    const before = html.style.height;
    html.style.height = "max-content";
    const height = Math.ceil(html.getBoundingClientRect().height);
    html.style.height = before;
    const width = Math.ceil(window.innerWidth);
    if (`${width}x${height}` === last) return;
    last = `${width}x${height}`;
    host.notify({ method: "ui/notifications/size-changed", params: { width, height } });
  };
  const observer = new ResizeObserver(measure);
  observer.observe(document.documentElement);
  observer.observe(document.body);
}

/** The handshake: the host sends the call's arguments and result only after `initialized`. */
async function connect(): Promise<void> {
  const initialized = await host.request("ui/initialize", {
    appInfo: { name: "osfoundry-notes-deck-preview", version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline"] },
    protocolVersion: APPS_PROTOCOL_VERSION,
  });
  applyContext(initialized.hostContext ?? {});
  host.notify({ method: "ui/notifications/initialized", params: {} });
  reportSize();
}

// Opened on its own (no host window above it), the page has no one to talk to: say so instead of waiting.
if (window.parent === window) show({ kind: "message", text: "This is the deck preview of osFoundry Notes: an MCP App, shown by an MCP client beside a tool's result." });
else {
  show(WAITING);
  void connect();
}
