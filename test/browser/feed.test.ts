/**
 * The activity feed reads like history, and the Markdown saves without a
 * false conflict (issue 24), in a real browser: headless Chromium against
 * `wrangler dev`, signed in as a person is.
 *
 * - Each entry says what things were called at its version: a tab created as
 *   "Alpha deck" and renamed since still reads "Alpha deck"; a citation reads
 *   the source's title. Newest first, the newest visible without scrolling;
 *   one that arrives is highlighted for a moment and announced politely; a
 *   line that names a tab links to the page opened on it; another day's time
 *   carries its date.
 * - Saving the Markdown says done, never "changed by someone else", twice in a
 *   row; a real change by someone else while the person has unsaved edits
 *   keeps the person's text and says so.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { orThrow, type PersonApi } from "../../scripts/lib/person-api.js";
import { AGENT, call, feedOf, newNote as newNoteOf, openPage as openPageOf, read as readOf, useBrowserHarness, WAIT, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let people: PersonApi;
beforeAll(() => {
  ({ people } = harness());
});

const newNote = (title: string) => newNoteOf(harness(), title);
const openPage = (noteId: string, options: Parameters<typeof openPageOf>[2] = {}) => openPageOf(harness(), noteId, options);
const read = <T,>(path: string) => readOf<T>(harness(), path);

/** Records every text the status line shows from now on (window.statusLog). */
async function recordStatus(page: OpenPage): Promise<void> {
  await page.evaluate(() => {
    const status = document.getElementById("status") as HTMLElement;
    const log: string[] = [];
    Object.assign(window, { statusLog: log });
    new MutationObserver(() => log.push(status.textContent ?? "")).observe(status, { childList: true, characterData: true, subtree: true });
  });
}
const statusLog = (page: OpenPage) => page.evaluate(() => (window as unknown as { statusLog: string[] }).statusLog.slice());

/** The feed line of this version. */
const lineOf = (page: OpenPage, version: number) => page.locator(`#feed li[data-version="${version}"]`);

describe("the activity feed tells history as it was", () => {
  it("names tabs and sources as they were, newest first, the newest in sight; a new entry is highlighted and announced; tab names link to the tab; another day shows its date", async () => {
    const { noteId, version } = await newNote("History");
    const deck = orThrow(await people.addTab(noteId, { tab_type: "slides", label: "Alpha deck" }), "add a deck").tab;
    expect((await people.request("PATCH", `/notes/${noteId}/tabs/${deck.id}`, { label: "Beta deck" })).status).toBe(200);
    // A dozen more changes: the feed's box overflows, so the newest must be where the box starts.
    for (let i = 0; i < 12; i += 1) expect((await people.request("PUT", `/notes/${noteId}/markdown`, { text: `Draft ${i}` })).status).toBe(200);
    const client = await connectClient(harness().server.mcpUrl, harness().agentToken);
    const page = await openPage(noteId);
    try {
      const before = await read<{ version: number }>(`/notes/${noteId}`);
      const source = await call(client, "add_note_source", { note_id: noteId, expected_version: before.version, idempotency_key: "src", title: "Q3 report", url: "https://example.com/q3" });

      // Newest first: the agent's citation on top, by the source's title, not the tab's name.
      const top = lineOf(page, source.version);
      await top.waitFor(WAIT);
      const feed = await feedOf(page);
      expect(feed[0]).toMatchObject({ version: source.version, actor: "agent", operation: "add_source" });
      expect(feed.map((line) => line.version)).toEqual([...feed.map((line) => line.version)].sort((a, b) => b - a));
      expect(feed[0]?.text).toContain(`${AGENT} (for alice) agent added a source “Q3 report” (${source.source_id})`);
      expect(feed[0]?.text).not.toContain("Sources");

      // The tab as it was: created as Alpha, renamed Alpha to Beta, even though it is called Beta now.
      const create = lineOf(page, version + 1);
      const rename = lineOf(page, version + 2);
      expect(await create.locator(".tab").textContent()).toBe(`“Alpha deck” (${deck.id})`);
      expect(await rename.locator(".tab").textContent()).toBe(`“Alpha deck” to “Beta deck” (${deck.id})`);
      expect(await page.locator(`#tab-strip button[data-tab-id="${deck.id}"] .label`).textContent()).toBe("Beta deck");

      // Each name of a tab links to the page opened on it; a citation's source links to the Sources tab.
      expect(await create.locator("a").getAttribute("href")).toBe(`/notes/${noteId}?tab=${deck.id}`);
      expect(await top.locator("a").getAttribute("href")).toBe(`/notes/${noteId}?tab=sources`);
      expect(await top.locator("a").textContent()).toBe(`“Q3 report” (${source.source_id})`);

      // It arrived while the page was open: highlighted, and announced without its IDs.
      expect(await top.getAttribute("class")).toContain("fresh");
      expect(await page.locator("#feed-news").textContent()).toBe(`${AGENT} added a source “Q3 report”.`);
      expect(await page.locator("#feed-news").getAttribute("aria-live")).toBe("polite");
      // The lines read at the start are history, not news.
      expect(await lineOf(page, source.version - 1).getAttribute("class")).toBeNull();

      // The newest is in sight: the box is scrolled to its start and the top line lies inside it.
      const sight = await page.evaluate((v) => {
        const box = (document.getElementById("feed") as HTMLElement).getBoundingClientRect();
        const line = (document.querySelector(`#feed li[data-version="${v}"]`) as HTMLElement).getBoundingClientRect();
        const list = document.getElementById("feed") as HTMLElement;
        return { overflows: list.scrollHeight > list.clientHeight, scrollTop: list.scrollTop, inside: line.top >= box.top && line.bottom <= box.bottom };
      }, source.version);
      expect(sight).toEqual({ overflows: true, scrollTop: 0, inside: true });

      // The agent's slide: on top in turn, announced as the issue words it; the highlight goes after a few seconds.
      const slide = await call(client, "edit_note_tab", { note_id: noteId, expected_version: source.version, idempotency_key: "slide", tab_id: deck.id, operation: "slide_add", title: "Why" });
      await lineOf(page, slide.version).waitFor(WAIT);
      expect((await feedOf(page))[0]?.version).toBe(slide.version);
      expect(await page.locator("#feed-news").textContent()).toBe(`${AGENT} added a slide to “Beta deck”: 1 slide.`);
      expect(await lineOf(page, slide.version).locator(".tab").textContent()).toBe(`“Beta deck” (${deck.id})`);
      await expect.poll(() => lineOf(page, slide.version).getAttribute("class"), WAIT).toBe("");
      // Motion only where the person allows it: under prefers-reduced-motion the highlight does not animate.
      const animation = () => page.evaluate(() => {
        const li = document.createElement("li");
        li.className = "fresh";
        document.getElementById("feed")?.append(li);
        const name = getComputedStyle(li).animationName;
        li.remove();
        return name;
      });
      expect(await animation()).toBe("feed-fresh");
      await page.emulateMedia({ reducedMotion: "reduce" });
      expect(await animation()).toBe("none");

      // Today's entries show their time alone; seen two days later, they carry their date.
      const monthOf = (at: string) => page.evaluate((iso) => new Intl.DateTimeFormat(navigator.language, { month: "short" }).format(new Date(iso)), at);
      const at = (await top.locator("time").getAttribute("datetime")) as string;
      expect(await top.locator("time").textContent()).not.toContain(await monthOf(at));
      const later = await openPage(noteId, { beforeOpen: (context) => context.clock.setFixedTime(Date.now() + 2 * 86_400_000) });
      try {
        const old = lineOf(later, source.version).locator("time");
        await old.waitFor(WAIT);
        expect(await old.textContent()).toContain(await monthOf(at));
        expect(await old.textContent()).toContain(String(new Date(at).getDate()));
      } finally {
        await later.context().close();
      }
      expect(page.problems).toEqual([]);
    } finally {
      await client.close();
      await page.context().close();
    }
  });
});

describe("the Markdown saves without a conflict that did not happen", () => {
  it("says done and never 'changed by someone else', twice in a row; a real change meanwhile keeps the person's text and says so", async () => {
    const { noteId } = await newNote("Markdown");
    const page = await openPage(noteId);
    try {
      await page.locator('#tab-strip button[data-tab-id="markdown"]').click();
      const area = page.locator("#markdown-text");
      await area.waitFor(WAIT);
      await recordStatus(page);
      const save = async (text: string) => {
        await area.fill(text);
        await page.locator('#markdown-form button[type="submit"]').click();
        await expect.poll(async () => (await read<{ markdown: string }>(`/notes/${noteId}`)).markdown, WAIT).toBe(text);
        const now = await read<{ version: number }>(`/notes/${noteId}`);
        // Done, and every re-read after it (the write's own, the socket's) has come and gone.
        await expect.poll(() => page.locator("#status").textContent(), WAIT).toBe(`Save Markdown: done, version ${now.version}.`);
        await lineOf(page, now.version).waitFor(WAIT);
        await expect.poll(() => page.evaluate(() => document.body.dataset.version), WAIT).toBe(String(now.version));
        await page.waitForTimeout(300);
      };
      await save("# First\n\nWritten on the page.");
      await save("# Second\n\nAnd again, right after.");
      expect((await statusLog(page)).filter((text) => /someone else/.test(text))).toEqual([]);
      expect(await page.locator("#status").textContent()).toMatch(/^Save Markdown: done, version \d+\.$/);
      expect(await area.inputValue()).toBe("# Second\n\nAnd again, right after.");

      // A real conflict: the Markdown changes elsewhere while the person has unsaved edits.
      await area.fill("# Mine\n\nNot saved yet.");
      expect((await people.request("PUT", `/notes/${noteId}/markdown`, { text: "# Theirs" })).status).toBe(200);
      await expect.poll(() => page.locator("#status").textContent(), WAIT).toContain("changed by someone else while you were editing");
      expect(await area.inputValue()).toBe("# Mine\n\nNot saved yet.");
      await page.locator('#markdown-form button[type="submit"]').click();
      await expect.poll(() => page.locator("#status").textContent(), WAIT).toMatch(/^Not saved: the Markdown was changed by someone else/);
      expect(await area.inputValue()).toBe("# Mine\n\nNot saved yet.");
      expect((await read<{ markdown: string }>(`/notes/${noteId}`)).markdown).toBe("# Theirs");
      // Discarding shows theirs.
      await page.locator("#markdown-reload").click();
      expect(await area.inputValue()).toBe("# Theirs");
      expect(page.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
