/**
 * Content on the person's page (issue 24): citing a page from the keyboard
 * (checked through the API and live on a second page), the dedupe answer in
 * words, a refused URL, a punycode host shown in Unicode with a readable date,
 * a file's details with a readable size, and the Markdown rendered.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import type { PersonApi } from "../../scripts/lib/person-api.js";
import { call, newNote as newNoteOf, openPage as openPageOf, read as readOf, pickTab, tabTo, typeInto, useBrowserHarness, WAIT, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let people: PersonApi;
beforeAll(() => {
  ({ people } = harness());
});

const read = <T,>(path: string) => readOf<T>(harness(), path);
const version = async (noteId: string) => (await read<{ version: number }>(`/notes/${noteId}`)).version;

type Source = { id: string; title: string; url: string; description: string; added_at: string };

describe("sources, files and the Markdown on the page", () => {
  it("cites a page from the keyboard (seen by the API and live on a second page), tells the dedupe in words, refuses a bad URL, shows a punycode host in Unicode", async () => {
    const { noteId } = await newNoteOf(harness(), "Sources");
    const page = await openPageOf(harness(), noteId);
    const second = await openPageOf(harness(), noteId);
    try {
      await pickTab(page, "sources");
      await pickTab(second, "sources");
      await second.evaluate(() => Object.assign(window, { stayedOpen: true }));
      expect(await second.locator("#tab-content").textContent()).toContain("No sources yet.");

      const before = await version(noteId);
      await typeInto(page, "#cite-source input[name=url]", "https://www.example.org/report/?utm_source=mail");
      await typeInto(page, "#cite-source input[name=title]", "The report");
      await typeInto(page, "#cite-source textarea[name=description]", "Why it matters");
      await tabTo(page, '#cite-source button[type="submit"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#status").textContent(), WAIT).toBe("Cited “The report” as source-1.");
      const listed = await read<{ items: Source[] }>(`/notes/${noteId}/attachments?kind=sources`);
      expect(listed.items).toEqual([{ id: "source-1", title: "The report", url: "https://www.example.org/report/?utm_source=mail", description: "Why it matters", added_at: expect.any(String) }]);
      expect(await version(noteId)).toBe(before + 1);
      // Done with: the form is empty again, the keyboard back on the URL.
      expect(await page.locator("#cite-source input[name=title]").inputValue()).toBe("");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("url");

      // Live on the second page, without a reload: a link, its date readable with the ISO time kept.
      for (const p of [page, second]) {
        const item = p.locator('#tab-content li[data-id="source-1"]');
        await item.waitFor(WAIT);
        const link = item.locator("a");
        expect(await link.textContent()).toBe("The report");
        expect(await link.getAttribute("href")).toBe("https://www.example.org/report/?utm_source=mail");
        expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
        expect(await item.locator(".url").textContent()).toBe("www.example.org/report/?utm_source=mail");
        const time = item.locator("time");
        expect(await time.getAttribute("datetime")).toBe(listed.items[0]?.added_at);
        expect(await time.textContent()).not.toContain("T");
        expect(await time.textContent()).toMatch(/\d{4}/);
      }
      expect(await second.evaluate(() => (window as unknown as { stayedOpen?: boolean }).stayedOpen)).toBe(true);

      // The same page under another spelling: the agent's dedupe answer, in words; nothing written, the typing kept.
      await typeInto(page, "#cite-source input[name=url]", "http://example.org/report");
      await typeInto(page, "#cite-source input[name=title]", "Same page again");
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#status").textContent(), WAIT).toBe("Already cited as “The report” (source-1): nothing added.");
      expect(await version(noteId)).toBe(before + 1);
      expect(await page.locator("#cite-source input[name=title]").inputValue()).toBe("Same page again");

      // A URL the Note refuses: the reason, naming the field; nothing written.
      await typeInto(page, "#cite-source input[name=url]", "javascript:alert(1)");
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#status").textContent(), WAIT).toBe('Cite a page: not done. The scheme "javascript:" is not allowed; use http or https.');
      expect(await version(noteId)).toBe(before + 1);

      // A punycode host, cited by an agent: the page shows it in Unicode, the link keeps the URL as stored.
      const client = await connectClient(harness().server.mcpUrl, harness().agentToken);
      try {
        await call(client, "add_note_source", { note_id: noteId, expected_version: before + 1, idempotency_key: "munich", title: "Stadtplan", url: "https://xn--mnchen-3ya.de/stadtplan" });
      } finally {
        await client.close();
      }
      for (const p of [page, second]) {
        const item = p.locator('#tab-content li[data-id="source-2"]');
        await item.waitFor(WAIT);
        expect(await item.locator(".url").textContent()).toBe("münchen.de/stadtplan");
        expect(await item.locator("a").getAttribute("href")).toBe("https://xn--mnchen-3ya.de/stadtplan");
      }

      // 360 pixels wide: the form and the list fit.
      await page.setViewportSize({ width: 360, height: 800 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      // Nothing went wrong but the one refusal this test asked for.
      expect(page.problems).toEqual([`400 ${harness().server.url}/api/v1/notes/${noteId}/sources`]);
      expect(second.problems).toEqual([]);
    } finally {
      await page.context().close();
      await second.context().close();
    }
  });

  it("records a file's details with a readable size, and renders the Markdown (again after a save)", async () => {
    const { noteId } = await newNoteOf(harness(), "Files and Markdown");
    expect((await people.request("PUT", `/notes/${noteId}/markdown`, { text: "# Plan\n\nFirst **bold** step.\n\n- one\n- two\n\n<img src=x>" })).status).toBe(200);
    const page = await openPageOf(harness(), noteId);
    try {
      await pickTab(page, "files");
      expect(await page.locator("#add-file").isVisible()).toBe(true);
      expect(await page.locator("#cite-source").isVisible()).toBe(false);
      expect(await page.locator("#add-file-hint").textContent()).toContain("details only");
      await typeInto(page, "#add-file input[name=name]", "deck.pdf");
      await typeInto(page, "#add-file input[name=media_type]", "application/pdf");
      await typeInto(page, "#add-file input[name=size_bytes]", "1572864");
      await page.keyboard.press("Enter");
      const item = page.locator('#tab-content li[data-id="file-1"]');
      await item.waitFor(WAIT);
      expect(await item.locator(".size").textContent()).toBe("1.5 MB");
      const files = await read<{ items: { name: string; media_type: string; size_bytes: number }[] }>(`/notes/${noteId}/attachments?kind=files`);
      expect(files.items).toEqual([expect.objectContaining({ name: "deck.pdf", media_type: "application/pdf", size_bytes: 1572864 })]);

      await pickTab(page, "markdown");
      const view = page.locator("#markdown-view");
      await expect.poll(() => view.locator("h3").textContent(), WAIT).toBe("Plan");
      expect(await view.locator("ul li").allTextContents()).toEqual(["one", "two"]);
      expect(await view.locator("strong").textContent()).toBe("bold");
      expect(await view.locator("img").count()).toBe(0);
      expect(await view.textContent()).toContain("<img src=x>");

      await typeInto(page, "#markdown-text", "## Next\n\n1. first\n2. second");
      await tabTo(page, '#markdown-form button[type="submit"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => view.locator("h4").textContent(), WAIT).toBe("Next");
      expect(await view.locator("ol li").allTextContents()).toEqual(["first", "second"]);
      expect(await view.locator("h3").count()).toBe(0);
      expect(page.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
