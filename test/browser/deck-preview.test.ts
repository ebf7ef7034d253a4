/**
 * The deck preview, an MCP App View (src/mcp/app), in a real browser
 * (issue 14, acceptance 4): headless Chromium (Debian's package, driven by
 * playwright-core) loads a host page that runs ext-apps' own `AppBridge` and
 * shows the resource's HTML in a sandboxed frame, as a chat client does. No
 * server: the host hands the View tool results and answers its tool calls
 * itself, and every request the View might make is caught and counted.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type FrameLocator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DECK_PREVIEW_URI, readDeckPreview } from "../../src/mcp/deck-preview.js";
import type { DeckHost } from "./deck-preview-host.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The host page's address: served by the test itself (page.route), never by a server. */
const HOST_URL = "http://deck-host.test/";
const WAIT = { timeout: 30_000 };
const HOSTILE = "<img src=x onerror=alert(1)>";

let browser: Browser;
let hostScript = "";
const viewHtml = (readDeckPreview(DECK_PREVIEW_URI)?.contents[0] as { text: string }).text;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package, or set CHROMIUM_PATH`);
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL("./deck-preview-host.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  hostScript = bundled.outputFiles[0]?.text ?? "";
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

interface Opened {
  page: Page;
  view: FrameLocator;
  /** Requests anything on the page made, other than the host page itself. */
  requests: string[];
  /** Dialogs (alert, confirm, prompt) anything opened. */
  dialogs: string[];
  /** Script errors and console errors (a CSP refusal is one). */
  problems: string[];
}

/** A host page with the View loaded and initialized. */
async function openHost(capabilities: Record<string, unknown>): Promise<Opened> {
  const page = await browser.newPage();
  const opened: Opened = { page, view: page.frameLocator("#view"), requests: [], dialogs: [], problems: [] };
  await page.route("**/*", async (route) => {
    const url = route.request().url();
    if (url === HOST_URL) {
      await route.fulfill({ contentType: "text/html", body: `<!doctype html><html><head><title>host</title></head><body><script>${hostScript}</script></body></html>` });
      return;
    }
    opened.requests.push(url);
    await route.abort();
  });
  page.on("dialog", async (dialog) => {
    opened.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on("pageerror", (error) => opened.problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") opened.problems.push(message.text());
  });
  await page.goto(HOST_URL);
  const started = page.evaluate(([html, caps]) => (window as unknown as { deckHost: DeckHost }).deckHost.start(html, caps), [viewHtml, capabilities] as const);
  // A View whose script never runs (a CSP refusal) never initializes: say why rather than wait out the test.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the View did not initialize: ${opened.problems.join("; ") || "no error seen"}`)), WAIT.timeout);
  });
  await Promise.race([started, stalled]).finally(() => clearTimeout(timer));
  return opened;
}

function send(page: Page, what: "input", value: Record<string, unknown>): Promise<void>;
function send(page: Page, what: "result", value: CallToolResult): Promise<void>;
function send(page: Page, what: "input" | "result", value: object): Promise<void> {
  return page.evaluate(
    ([kind, v]) => {
      const host = (window as unknown as { deckHost: DeckHost }).deckHost;
      return kind === "input" ? host.sendToolInput(v as Record<string, unknown>) : host.sendToolResult(v as CallToolResult);
    },
    [what, value] as const,
  );
}

/** A tool result as the connector answers one: the value as JSON text and as structuredContent. */
function result(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/** The deck as the View shows it: label, caption, and each slide's number, title, ID, body, and notes with whether they are open. */
async function shownDeck(view: FrameLocator) {
  const slides = await view.locator("li.slide").evaluateAll((items) =>
    items.map((li) => {
      const details = li.querySelector("details.notes") as HTMLDetailsElement | null;
      return {
        number: li.querySelector(".number")?.textContent ?? null,
        title: li.querySelector(".title")?.textContent ?? null,
        id: li.querySelector(".id")?.textContent ?? null,
        dataId: li.getAttribute("data-slide-id"),
        body: li.querySelector(".body")?.textContent ?? null,
        notes: details === null ? null : { text: details.querySelector("p")?.textContent ?? null, open: details.open },
      };
    }),
  );
  return { label: await view.locator("h1.label").textContent(), caption: await view.locator("p.caption").textContent(), slides };
}

/** Elements the View's document holds that data could have smuggled in as markup. */
function smuggled(view: FrameLocator): Promise<{ img: number; scripts: number; b: number }> {
  return view.locator("html").evaluate((html) => ({
    img: html.querySelectorAll("img").length,
    scripts: html.querySelectorAll("script").length,
    b: html.querySelectorAll("b").length,
  }));
}

const deck = {
  note_id: "launch",
  version: 7,
  tab: { id: "slides-4-mh8z1k2a", type: "slides", label: "Q3 <launch>", position: 3, slide_count: 3 },
  slides: [
    { id: "slide-1-mh8z1k2a", index: 0, title: "Why now", body: "Markets moved.\nWe move too.", notes: "" },
    { id: "slide-2-mh8z1k2a", index: 1, title: HOSTILE, body: "<b>not bold</b> & <i>plain</i>", notes: "Say <script>alert(2)</script> slowly" },
    { id: "slide-3-mh8z1k2a", index: 2, title: "Next steps", body: "Ship it", notes: "Thank the team" },
  ],
  next_cursor: null,
};

describe("the deck preview in a host", () => {
  it("acceptance 4: shows a read_note_tab result's three slides in order, a hostile title as text (no element, no alert), and the notes folded", async () => {
    const { page, view, requests, dialogs, problems } = await openHost({});
    try {
      await send(page, "input", { note_id: "launch", tab_id: "slides-4-mh8z1k2a" });
      await send(page, "result", result(deck));
      await view.locator("li.slide").nth(2).waitFor(WAIT);
      expect(await shownDeck(view)).toEqual({
        label: "Q3 <launch>",
        caption: "3 slides",
        slides: [
          { number: "1", title: "Why now", id: "slide-1-mh8z1k2a", dataId: "slide-1-mh8z1k2a", body: "Markets moved.\nWe move too.", notes: null },
          { number: "2", title: HOSTILE, id: "slide-2-mh8z1k2a", dataId: "slide-2-mh8z1k2a", body: "<b>not bold</b> & <i>plain</i>", notes: { text: "Say <script>alert(2)</script> slowly", open: false } },
          { number: "3", title: "Next steps", id: "slide-3-mh8z1k2a", dataId: "slide-3-mh8z1k2a", body: "Ship it", notes: { text: "Thank the team", open: false } },
        ],
      });
      // The hostile text made no element: one script (the View's own), no image, no bold.
      expect(await smuggled(view)).toEqual({ img: 0, scripts: 1, b: 0 });
      // Folded notes are there to open.
      await view.locator("li.slide").nth(1).locator("summary").click();
      expect(await view.locator("li.slide").nth(1).locator("details").evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      // The View fits its frame to the deck (size-changed), and it never reached for the network, alerted or failed.
      await expect.poll(() => page.evaluate(() => (window as unknown as { deckHost: DeckHost }).deckHost.height), WAIT).toBeGreaterThan(150);
      expect(dialogs).toEqual([]);
      expect(requests).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("after create_note_tab, asks the host to call read_note_tab for the new tab, every page, and shows the deck the Note answered", async () => {
    const { page, view, requests, dialogs, problems } = await openHost({ serverTools: {} });
    try {
      const tab = "slides-9-mh8z1k2a";
      const readBack = [
        { id: "slide-7-mh8z1k2a", index: 0, title: "Read back one", body: "as stored", notes: "n1" },
        { id: "slide-8-mh8z1k2a", index: 1, title: HOSTILE, body: "", notes: "" },
        { id: "slide-9-mh8z1k2a", index: 2, title: "Read back three", body: "last", notes: "" },
      ];
      const summary = { id: tab, type: "slides", label: "Roadmap", position: 4, slide_count: 3 };
      await page.evaluate(
        (answers) => {
          (window as unknown as { deckHost: DeckHost }).deckHost.answers.push(...answers);
        },
        [
          result({ note_id: "launch", version: 8, tab: summary, slides: readBack.slice(0, 2), next_cursor: "page-2" }),
          result({ note_id: "launch", version: 8, tab: summary, slides: readBack.slice(2), next_cursor: null }),
        ],
      );
      const outline = [{ title: "Outline one" }, { title: "Outline two", body: "b" }, { title: "Outline three", notes: "n" }];
      await send(page, "input", { note_id: "launch", expected_version: 7, idempotency_key: "roadmap", tab_type: "slides", label: "Roadmap", slides: outline });
      // The outline shows while the call runs, without IDs (the Note has given none yet).
      await expect.poll(() => view.locator(".title").allTextContents(), WAIT).toEqual(["Outline one", "Outline two", "Outline three"]);
      expect(await view.locator(".id").count()).toBe(0);
      await send(
        page,
        "result",
        result({
          note_id: "launch",
          version: 8,
          replayed: false,
          arguments_differ: false,
          tab_id: tab,
          tab_type: "slides",
          label: "Roadmap",
          position: 4,
          slide_count: 3,
          slide_ids: readBack.map((s) => s.id),
        }),
      );
      await expect.poll(() => view.locator(".title").allTextContents(), WAIT).toEqual(["Read back one", HOSTILE, "Read back three"]);
      const shown = await shownDeck(view);
      expect(shown.label).toBe("Roadmap");
      expect(shown.caption).toBe("3 slides");
      expect(shown.slides.map((s) => s.id)).toEqual(readBack.map((s) => s.id));
      expect(shown.slides[0]?.notes).toEqual({ text: "n1", open: false });
      const calls = await page.evaluate(() => (window as unknown as { deckHost: DeckHost }).deckHost.calls);
      expect(calls).toEqual([
        { name: "read_note_tab", arguments: { note_id: "launch", tab_id: tab } },
        { name: "read_note_tab", arguments: { note_id: "launch", tab_id: tab, cursor: "page-2" } },
      ]);
      expect(await smuggled(view)).toEqual({ img: 0, scripts: 1, b: 0 });
      expect(dialogs).toEqual([]);
      expect(requests).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("after create_note_tab in a host that will not call tools for it, shows the outline as sent with the IDs the Note gave", async () => {
    const { page, view, requests, problems } = await openHost({});
    try {
      const outline = [{ title: "First", body: "one" }, { title: "Second", notes: "two" }];
      await send(page, "input", { note_id: "launch", expected_version: 7, idempotency_key: "k", tab_type: "slides", label: "Short", slides: outline });
      await send(
        page,
        "result",
        result({ note_id: "launch", version: 8, replayed: false, arguments_differ: false, tab_id: "slides-3-x", tab_type: "slides", label: "Short", position: 3, slide_count: 2, slide_ids: ["slide-1-x", "slide-2-x"] }),
      );
      await expect.poll(() => view.locator("p.caption").textContent(), WAIT).toContain("did not let this preview read the deck back");
      expect((await shownDeck(view)).slides).toEqual([
        { number: "1", title: "First", id: "slide-1-x", dataId: "slide-1-x", body: "one", notes: null },
        { number: "2", title: "Second", id: "slide-2-x", dataId: "slide-2-x", body: null, notes: { text: "two", open: false } },
      ]);
      expect(requests).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("says in one line that a Sheet tab is not a deck", async () => {
    const { page, view, problems } = await openHost({});
    try {
      const sheet = { note_id: "launch", version: 7, tab: { id: "sheet-2-x", type: "sheet", label: "Budget", position: 3, row_count: 0, column_count: 1 }, columns: ["A"], rows: [], next_cursor: null };
      await send(page, "result", result(sheet));
      await expect.poll(() => view.locator("p.message").textContent(), WAIT).toBe("“Budget” is a Sheet tab, not a deck.");
      expect(await view.locator("li.slide").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe("the page opened on its own", () => {
  it("says what it is, in one line, with no error and no request (it has no host to wait for)", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    await page.route("**/*", async (route) => {
      if (route.request().url() === HOST_URL) return route.fulfill({ contentType: "text/html", body: viewHtml });
      requests.push(route.request().url());
      return route.abort();
    });
    await page.goto(HOST_URL);
    await expect.poll(() => page.locator("body").textContent(), WAIT).toMatch(/an MCP App, shown by an MCP client/);
    expect({ problems, requests }).toEqual({ problems: [], requests: [] });
    await page.close();
  });
});
