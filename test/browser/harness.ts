/**
 * What every browser test file shares: its own `wrangler dev` (a throwaway
 * storage directory), a headless Chromium (Debian's package, driven by
 * playwright-core, never a downloaded browser), alice's person's API and an
 * agent's token, and the page opened and signed in as a person does.
 *
 * Screenshots (`shot`) are written only by `npm run screenshots`, which sets
 * SCREENSHOTS to the folder they go to (docs/ for the README's); a test run
 * leaves the tree as it found it.
 */
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { PersonApi } from "../../scripts/lib/person-api.js";
import { signIn } from "../../scripts/lib/sign-in.js";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer } from "../../scripts/local-server.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** The agent's registered client name: the page must show its changes under it. */
export const AGENT = "Deck Builder (browser test)";
export const USER = "alice";
/** Waits for the page: generous, since two cores are shared; how long it took is reported, never asserted. */
export const WAIT = { timeout: 60_000 };

/** A page this harness opened: what went wrong on it (page errors, console errors, failed loads after sign-in). */
export type OpenPage = Page & { problems: string[] };

export interface Harness {
  /** The running server; a test that restarts it (same port, same storage) puts the new one here, for afterAll to stop. */
  server: LocalServer;
  port: number;
  persistDir: string;
  browser: Browser;
  /** alice's person's API (scope osfoundry:app). */
  people: PersonApi;
  /** alice's agent token (read and write), its client registered as AGENT. */
  agentToken: string;
}

/**
 * Starts this file's server and browser before its tests and stops them after; answers a getter
 * (the harness exists once beforeAll ran).
 */
export function useBrowserHarness(): () => Harness {
  let harness: Harness | undefined;
  let persistDir = "";
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package, or set CHROMIUM_PATH`);
    persistDir = await tempPersistDir();
    const port = await freePort();
    const server = await startLocalServer({ port, persistTo: persistDir });
    const people = new PersonApi({ origin: server.url, token: (await signIn({ origin: server.url, user: USER, scopes: ["osfoundry:app"], resource: "api" })).access_token });
    const agentToken = (await signIn({ origin: server.url, user: USER, scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp", clientName: AGENT })).access_token;
    // Chromium's sandbox refuses to run as root (CI's containers): only then without it.
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
    harness = { server, port, persistDir, browser, people, agentToken };
  }, 180_000);
  afterAll(async () => {
    await harness?.browser.close();
    await harness?.server.stop();
    if (persistDir !== "") await removeDir(persistDir);
  });
  return () => {
    if (harness === undefined) throw new Error("the browser harness did not start");
    return harness;
  };
}

/** Starts the server again on the same port and storage (after `server.stop()`): the harness stops this one at the end. */
export async function restartServer(harness: Harness): Promise<LocalServer> {
  harness.server = await startLocalServer({ port: harness.port, persistTo: harness.persistDir });
  return harness.server;
}

/**
 * An agent for the whole file: the official MCP client with alice's agent token (client name AGENT),
 * connected after the harness started and closed at the end. Call after useBrowserHarness.
 */
export function useAgentClient(harness: () => Harness): () => Client {
  let client: Client | undefined;
  beforeAll(async () => {
    client = await connectClient(harness().server.mcpUrl, harness().agentToken);
  });
  afterAll(async () => {
    await client?.close();
  });
  return () => {
    if (client === undefined) throw new Error("the agent's client is not connected yet");
    return client;
  };
}

/** A new Note alice owns and approved for connectors; its ID and version. */
export async function newNote(harness: Harness, title: string): Promise<{ noteId: string; version: number }> {
  const noteId = `page-${crypto.randomUUID()}`;
  return { noteId, version: await harness.people.createApprovedNote(noteId, title) };
}

/**
 * Opens `path` (a Note's page, `/notes/<id>`, or any page under /notes/) in a fresh browser context,
 * signing in as a person does: the page's first read answers 401, its script goes to /notes/sign-in,
 * the local consent page is answered from the keyboard, and the callback's cookie brings the browser
 * back (as `user`, alice by default). For a Note's page, waits until it is live.
 */
export async function openPath(
  harness: Harness,
  path: string,
  { user = USER, beforeOpen, live = path.split("/").length === 3 && path.split("/")[2] !== "", viewport = { width: 1280, height: 900 } }: { user?: string; beforeOpen?: (context: BrowserContext) => Promise<void>; live?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<OpenPage> {
  const { server, browser } = harness;
  const context = await browser.newContext({ viewport });
  await beforeOpen?.(context);
  const page = (await context.newPage()) as OpenPage;
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  // Failed loads are counted by their responses below, with their URLs.
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) problems.push(message.text());
  });
  let signedIn = false;
  page.on("response", (response) => {
    // Signed in once the callback answered (not once the test noticed): the page's first read may come right after it.
    if (response.url().startsWith(`${server.url}/notes/callback`)) signedIn = true;
    // Before sign-in: the 401 that sends the page to sign in, and the consent page's own requests.
    if (!signedIn && (response.status() === 401 || !response.url().startsWith(`${server.url}/notes/`))) return;
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  page.problems = problems;
  const target = `${server.url}${path}`;
  await page.goto(target);
  await page.waitForURL(/\/authorize\?/, WAIT);
  const field = page.locator('input[name="user"]');
  await field.fill(user);
  await field.focus();
  await page.keyboard.press("Enter"); // the form's first button: Allow
  await page.waitForURL((url) => url.href.startsWith(target.split("?")[0] ?? target), WAIT);
  expect((await context.cookies()).map((cookie) => cookie.name)).toContain("notes_session");
  signedIn = true;
  if (live) await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
  return page;
}

/** Opens the Note's page (see openPath). */
export function openPage(harness: Harness, noteId: string, options: Parameters<typeof openPath>[2] = {}): Promise<OpenPage> {
  return openPath(harness, `/notes/${noteId}`, { live: true, ...options });
}

/** Presses Tab until `selector` has the focus: proves it can be reached from the keyboard. */
export async function tabTo(page: Page, selector: string): Promise<void> {
  for (let presses = 0; presses < 120; presses += 1) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) === true, selector)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`${selector} cannot be reached with Tab`);
}

/** Picks a tab from the keyboard (Tab to its button, Enter) and waits for its panel. */
export async function pickTab(page: Page, tabId: string): Promise<void> {
  await tabTo(page, `#tab-strip button[data-tab-id="${tabId}"]`);
  await page.keyboard.press("Enter");
  await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(tabId);
}

/** Types into a field reached with Tab, replacing what it held. */
export async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await tabTo(page, selector);
  await page.keyboard.press("Control+A");
  await page.keyboard.type(text);
}

/** The page's tab strip: each tab's label and exact ID, in order. */
export function tabStrip(page: Page): Promise<{ id: string; label: string }[]> {
  return page.locator("#tab-strip button").evaluateAll((buttons) =>
    buttons.map((b) => ({ id: b.getAttribute("data-tab-id") ?? "", label: b.querySelector(".label")?.textContent ?? "" })),
  );
}

/** The activity feed as the page shows it: version, actor kind and operation of each line, in the page's order. */
export function feedOf(page: Page): Promise<{ version: number; actor: string; operation: string; text: string }[]> {
  return page.locator("#feed li").evaluateAll((items) =>
    items.map((li) => ({ version: Number(li.getAttribute("data-version")), actor: li.getAttribute("data-actor") ?? "", operation: li.getAttribute("data-operation") ?? "", text: li.textContent ?? "" })),
  );
}

/** A tool call that must succeed; its structured result. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/** A read through alice's person's API that must answer 200. */
export async function read<T>(harness: Harness, path: string): Promise<T> {
  const answer = await harness.people.request("GET", path);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as T;
}

/**
 * Saves a screenshot named `name` into SCREENSHOTS's folder, when `npm run screenshots` set it; otherwise nothing.
 * Of the element `target` selects, of what the window shows (`"window"`), or of the whole page (none).
 */
export async function shot(page: Page, name: string, target?: string): Promise<void> {
  const folder = process.env.SCREENSHOTS;
  if (folder === undefined || folder === "") return;
  const path = resolve(folder, name);
  if (target === undefined) await page.screenshot({ path, fullPage: true });
  else if (target === "window") await page.screenshot({ path });
  else await page.locator(target).screenshot({ path });
}
