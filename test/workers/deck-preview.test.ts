/**
 * The deck preview's MCP App resource as the Worker serves it
 * (src/mcp/deck-preview.ts): its descriptor, its page (self-contained, a CSP
 * that allows nothing from outside), the tools' `_meta`, and which clients'
 * capabilities announce MCP Apps. What the page does in a browser is
 * test/browser/deck-preview.test.ts's.
 */
import { describe, expect, it } from "vitest";
import {
  announcesUi,
  DECK_PREVIEW_TOOLS,
  DECK_PREVIEW_URI,
  deckPreviewResource,
  readDeckPreview,
  toolUiMeta,
  UI_EXTENSION_ID,
} from "../../src/mcp/deck-preview.js";

const MIME = "text/html;profile=mcp-app";
/** Where a 2026-07-28 request carries its client's capabilities. */
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const NO_OUTSIDE_ORIGIN = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

/** The page's one text: the HTML of the resource. */
function page(): { text: string; mimeType: unknown; meta: unknown; uri: unknown } {
  const read = readDeckPreview(DECK_PREVIEW_URI);
  expect(read?.contents).toHaveLength(1);
  const content = read?.contents[0] as { uri: unknown; mimeType: unknown; text?: unknown; _meta?: unknown };
  expect(typeof content.text).toBe("string");
  return { text: content.text as string, mimeType: content.mimeType, meta: content._meta, uri: content.uri };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
}

describe("resources/read of the deck preview", () => {
  it("answers its URI with MCP Apps' HTML profile, a whole HTML document, and the CSP metadata of no outside origin", () => {
    const { text, mimeType, meta, uri } = page();
    expect(uri).toBe(DECK_PREVIEW_URI);
    expect(mimeType).toBe(MIME);
    expect(text.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(text.endsWith("</html>")).toBe(true);
    expect(meta).toEqual({ ui: { csp: NO_OUTSIDE_ORIGIN, prefersBorder: true } });
  });

  it("allows nothing but its own inline script and style, by their hashes, and names nothing to fetch", async () => {
    const { text } = page();
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(text)?.[1] ?? "";
    const directives = new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
    expect([...directives.keys()]).toEqual(["default-src", "script-src", "style-src", "base-uri", "form-action"]);
    expect(directives.get("default-src")).toBe("'none'");
    expect(directives.get("base-uri")).toBe("'none'");
    expect(csp).not.toContain("unsafe");
    // One script and one style, inline; the CSP names exactly their hashes.
    const scripts = [...text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] as string);
    const styles = [...text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] as string);
    expect(text.match(/<script\b/g)).toHaveLength(1);
    expect(text.match(/<style\b/g)).toHaveLength(1);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(directives.get("script-src")).toBe(`'${await sha256(scripts[0] as string)}'`);
    expect(directives.get("style-src")).toBe(`'${await sha256(styles[0] as string)}'`);
    // No URL of any kind, no attribute that loads, no handler attribute.
    expect(text).not.toMatch(/https?:|wss?:|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    expect(text).not.toMatch(/\s(src|href|action|srcset)=/i);
    expect(text).not.toMatch(/\son[a-z]+=/i);
    expect(text).not.toMatch(/\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)\b/);
    // Data goes in as text: the script never parses markup.
    expect(text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/);
  });

  it("is small: a few kilobytes in the Worker's bundle", () => {
    const bytes = new TextEncoder().encode(page().text).byteLength;
    expect(bytes).toBeGreaterThan(2_000);
    expect(bytes).toBeLessThan(20 * 1024);
  });

  it("answers null for any other URI, so the caller answers not found", () => {
    for (const uri of ["ui://other", "ui://notes/deck-preview.html?x=1", "ui://notes/deck-preview.htm", "UI://notes/deck-preview.html", "", "https://example.com/"]) {
      expect(readDeckPreview(uri), uri).toBeNull();
    }
  });
});

describe("the deck preview's descriptors", () => {
  it("lists the resource under its ui:// URI with MCP Apps' HTML profile and no outside origin", () => {
    expect(deckPreviewResource).toEqual({
      uri: "ui://notes/deck-preview.html",
      name: "deck-preview",
      title: "Deck preview",
      description: expect.stringContaining("Read-only"),
      mimeType: MIME,
      _meta: { ui: { csp: NO_OUTSIDE_ORIGIN, prefersBorder: true } },
    });
    expect(DECK_PREVIEW_URI.startsWith("ui://")).toBe(true);
    // The listed and the read metadata agree: a host may take either.
    expect(page().meta).toEqual(deckPreviewResource._meta);
  });

  it("declares the preview on the three deck tools, under ui.resourceUri and the flat key older hosts read", () => {
    expect(toolUiMeta).toEqual({ ui: { resourceUri: DECK_PREVIEW_URI }, "ui/resourceUri": DECK_PREVIEW_URI });
    expect([...DECK_PREVIEW_TOOLS].sort()).toEqual(["create_note_tab", "edit_note_tab", "read_note_tab"]);
    expect(UI_EXTENSION_ID).toBe("io.modelcontextprotocol/ui");
  });
});

describe("announcesUi, by MIME type as MIME types compare", () => {
  it("takes the HTML profile in any case and with spaces around the parameter", () => {
    for (const type of ["TEXT/HTML;PROFILE=MCP-APP", "text/html; profile=mcp-app"]) {
      expect(announcesUi({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [type] } } }), type).toBe(true);
    }
    expect(announcesUi({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html"] } } })).toBe(false);
  });
});

describe("announcesUi", () => {
  const apps = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } };

  it("is true for a 2026-07-28 request whose envelope's client capabilities announce MCP Apps with the HTML profile", () => {
    const params = { name: "read_note_tab", arguments: {}, _meta: { [CLIENT_CAPABILITIES]: { ...apps, sampling: {} } } };
    expect(announcesUi(params._meta[CLIENT_CAPABILITIES])).toBe(true);
  });

  it("is true for a 2025-11-25 initialize whose capabilities announce it, among other profiles and extensions", () => {
    const params = {
      protocolVersion: "2025-11-25",
      clientInfo: { name: "host", version: "1" },
      capabilities: { roots: {}, extensions: { "io.example/other": {}, "io.modelcontextprotocol/ui": { mimeTypes: ["text/html+skybridge", MIME] } } },
    };
    expect(announcesUi(params.capabilities)).toBe(true);
  });

  it("is false for a client that announces nothing, another extension, the extension without the HTML profile, or a malformed one", () => {
    const cases: unknown[] = [
      undefined,
      null,
      "io.modelcontextprotocol/ui",
      [apps],
      {},
      { sampling: {}, roots: { listChanged: true } },
      { extensions: {} },
      { extensions: { "io.example/other": { mimeTypes: [MIME] } } },
      { extensions: { "io.modelcontextprotocol/ui": {} } },
      { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [] } } },
      { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html"] } } },
      { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: MIME } } },
      { extensions: { "io.modelcontextprotocol/ui": null } },
      { extensions: null },
      { experimental: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } },
      // The envelope itself is not the capabilities: the caller takes them out of it.
      { [CLIENT_CAPABILITIES]: apps },
    ];
    for (const capabilities of cases) expect(announcesUi(capabilities), JSON.stringify(capabilities) ?? "undefined").toBe(false);
  });
});
