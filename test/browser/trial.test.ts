/**
 * A newcomer's trial of the person's page (issue 24): inputs and gestures
 * nobody planned for. Each case here failed on the page before its fix.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orThrow } from "../../scripts/lib/person-api.js";
import { newNote, openPage, openPath, read, useBrowserHarness, WAIT, type Harness, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let h: Harness;
let noteId = "";
let person: OpenPage;

const status = () => person.locator("#status").textContent();
const version = async () => (await read<{ version: number }>(h, `/notes/${noteId}`)).version;

beforeAll(async () => {
  h = harness();
  ({ noteId } = await newNote(h, "Trial"));
  person = await openPage(h, noteId);
});

afterAll(async () => {
  await person?.context().close();
});

describe("the person's page under a newcomer's hands", () => {
  it("a double-clicked Save sends its write once: no conflict the person did not make", async () => {
    const writes: string[] = [];
    person.on("request", (request) => {
      if (request.method() !== "GET" && request.url().includes("/api/v1/")) writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    const start = await version();
    await person.locator("#rename-note").click();
    await person.locator("#note-title-input").fill("Twice clicked");
    await person.locator('#note-title-form button[type="submit"]').dblclick();
    await expect.poll(status, WAIT).toMatch(/^Rename the Note: done/);
    await person.locator('#add-member input[name="user"]').fill("carol");
    await person.locator('#add-member button[type="submit"]').dblclick();
    await expect.poll(status, WAIT).toMatch(/^Add carol: done/);
    await expect.poll(() => person.locator("#note-version").textContent(), WAIT).toBe(String(start + 2));
    expect(await status()).not.toMatch(/changed while/);
    expect(writes).toEqual([`PATCH /api/v1/notes/${noteId}`, `POST /api/v1/notes/${noteId}/members`]);
    expect(await version()).toBe(start + 2);
    expect(person.problems).toEqual([]);
  });

  it("a tab deleted elsewhere while the person edits a slide in it: their unsaved text is kept to copy, and said", async () => {
    const deck = orThrow(await h.people.addTab(noteId, { tab_type: "slides", label: "Doomed deck" }), "add a deck").tab.id;
    const slides = orThrow(await h.people.setSlides(noteId, deck, { slides: [{ title: "Only" }], expected_version: await version() }), "fill it");
    const slideId = ((await read<{ slides: { id: string }[] }>(h, `/notes/${noteId}/tabs/${deck}`)).slides[0] as { id: string }).id;
    await expect.poll(() => person.locator("#note-version").textContent(), WAIT).toBe(String(slides.version));
    await person.locator(`#tab-strip button[data-tab-id="${deck}"]`).click();
    await person.locator(`[data-key="edit:${slideId}"]`).click();
    await person.locator(`[data-key="body:${slideId}"]`).fill("Words I have not saved yet");
    const deleted = await h.people.request("DELETE", `/notes/${noteId}/tabs/${deck}?expected_version=${await version()}`);
    expect(deleted.status).toBe(200);
    const kept = person.locator(".kept-text");
    await kept.waitFor(WAIT);
    expect(await kept.locator("h3").textContent()).toBe(`The tab “Doomed deck” (${deck}) was deleted by alice while you were editing it. Your unsaved text is kept here to copy:`);
    expect(await kept.getByLabel("Slide 1, Body").inputValue()).toBe("Words I have not saved yet");
    expect(await person.evaluate(() => document.activeElement?.closest(".kept-text") !== null)).toBe(true);
    await kept.getByRole("button", { name: "Dismiss" }).click();
    expect(await person.locator(".kept-text").count()).toBe(0);
    expect(person.problems).toEqual([]);
  });

  it("the same for a Sheet: a row's unsaved cell is kept when its tab is deleted elsewhere", async () => {
    const sheet = orThrow(await h.people.addTab(noteId, { tab_type: "sheet", label: "Doomed sheet" }), "add a Sheet").tab.id;
    const filled = await h.people.request("POST", `/notes/${noteId}/tabs/${sheet}/columns`, { columns: ["Item"], expected_version: await version() });
    expect(filled.status).toBe(201);
    expect((await h.people.request("POST", `/notes/${noteId}/tabs/${sheet}/rows`, { rows: [{ Item: "Tea" }], expected_version: await version() })).status).toBe(201);
    await person.locator(`#tab-strip button[data-tab-id="${sheet}"]`).click();
    await person.locator('#tab-content tbody tr[data-row-id] [data-action="edit"]').first().click();
    await person.locator('#tab-content input[aria-label="Row 1, Item"]').fill("Green tea, unsaved");
    expect((await h.people.request("DELETE", `/notes/${noteId}/tabs/${sheet}?expected_version=${await version()}`)).status).toBe(200);
    const kept = person.locator(".kept-text");
    await kept.waitFor(WAIT);
    expect(await kept.getByLabel("Row 1, “Item”").inputValue()).toBe("Green tea, unsaved");
    await kept.getByRole("button", { name: "Dismiss" }).click();
    expect(person.problems).toEqual([]);
  });

  it("at 360 px a tab label of 100 characters without a space wraps: no horizontal scroll", async () => {
    orThrow(await h.people.addTab(noteId, { tab_type: "slides", label: "L".repeat(100) }), "add a deck");
    const narrow = await openPage(h, noteId, { viewport: { width: 360, height: 800 } });
    await expect.poll(() => narrow.locator("#tab-strip button").count(), WAIT).toBeGreaterThan(3);
    expect(await narrow.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(narrow.problems).toEqual([]);
    await narrow.context().close();
  });

  it("a member ID of spaces only is refused in words that name no blank user", async () => {
    await person.locator('#add-member input[name="user"]').fill("   ");
    await person.locator('#add-member input[name="user"]').press("Enter");
    await expect.poll(status, WAIT).toBe("Add a member: not done. The user ID must not be empty.");
    expect(person.problems).toEqual([expect.stringMatching(/400 .*\/members$/)]);
    person.problems.length = 0;
  });

  it("the Note renamed elsewhere (seen live) while the person renames it: told as a conflict, not overwritten without a word; Escape closes the form", async () => {
    await person.locator("#rename-note").click();
    await person.locator("#note-title-input").fill("Person's title");
    orThrow(await h.people.renameNote(noteId, { title: "Their title", expected_version: await version() }), "rename");
    await expect.poll(() => person.locator("#note-title").textContent(), WAIT).toBe("Their title");
    expect(await person.locator("#note-title-input").inputValue()).toBe("Person's title");
    await person.locator("#note-title-input").press("Enter");
    await expect.poll(status, WAIT).toBe(
      "Rename the Note: not done. The Note was renamed to “Their title” while you were editing. Your title is kept in the field: Save title again to apply it, or Cancel.",
    );
    expect((await read<{ title: string }>(h, `/notes/${noteId}`)).title).toBe("Their title");
    await person.locator("#note-title-input").press("Enter");
    await expect.poll(async () => (await read<{ title: string }>(h, `/notes/${noteId}`)).title, WAIT).toBe("Person's title");
    await person.locator("#rename-note").click();
    await person.locator("#note-title-input").fill("Not this");
    await person.locator("#note-title-input").press("Escape");
    expect(await person.locator("#note-title-form").isHidden()).toBe(true);
    expect(await person.evaluate(() => document.activeElement?.id)).toBe("rename-note");
    expect(await person.locator("#note-title-input").inputValue()).toBe("Person's title");
    expect(person.problems).toEqual([]);
  });

  it("a tab renamed elsewhere (seen live) while the person renames it: told, not overwritten without a word", async () => {
    const tabId = orThrow(await h.people.addTab(noteId, { tab_type: "sheet", label: "Budget" }), "add a Sheet").tab.id;
    await person.locator(`#tab-strip button[data-tab-id="${tabId}"]`).click();
    const field = person.locator('#rename-tab input[name="label"]');
    await expect.poll(() => field.inputValue(), WAIT).toBe("Budget");
    await field.fill("Person's budget");
    const renamed = await h.people.request("PATCH", `/notes/${noteId}/tabs/${tabId}`, { label: "Their budget", expected_version: await version() });
    expect(renamed.status).toBe(200);
    await expect.poll(() => person.locator(`#tab-strip button[data-tab-id="${tabId}"] .label`).textContent(), WAIT).toBe("Their budget");
    await field.press("Enter");
    await expect.poll(status, WAIT).toBe("Rename: not done. This tab was renamed to “Their budget” while you were editing. Your label is kept in the field: Rename again to apply it.");
    expect(await field.inputValue()).toBe("Person's budget");
    await field.press("Enter");
    await expect.poll(() => person.locator(`#tab-strip button[data-tab-id="${tabId}"] .label`).textContent(), WAIT).toBe("Person's budget");
    expect(person.problems).toEqual([]);
  });

  it("at 360 px the home wraps a 200-character title and filter without a space: no horizontal scroll", async () => {
    const long = "N".repeat(200);
    orThrow(await h.people.renameNote(noteId, { title: long, expected_version: await version() }), "rename");
    const home = await openPath(h, "/notes/", { viewport: { width: 360, height: 800 } });
    await home.locator("#notes li").first().waitFor(WAIT);
    expect(await home.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await home.getByLabel("Titles containing").fill("x".repeat(200));
    await expect.poll(() => home.locator("#notes-range").textContent(), WAIT).toMatch(/^No Note whose title contains/);
    expect(await home.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(home.problems).toEqual([]);
    await home.context().close();
  });

  it("the Markdown changed elsewhere while the person edits it: the conflict names the change, and Save again saves the person's over it", async () => {
    await person.locator('#tab-strip button[data-tab-id="markdown"]').click();
    const area = person.locator("#markdown-text");
    await area.fill("# Mine");
    const theirs = await h.people.request("PUT", `/notes/${noteId}/markdown`, { text: "# Theirs", expected_version: await version() });
    expect(theirs.status).toBe(200);
    const at = (theirs.body as { version: number }).version;
    await expect.poll(status, WAIT).toContain("changed by someone else while you were editing");
    await person.locator('#markdown-form button[type="submit"]').click();
    await expect.poll(status, WAIT).toBe(
      `Not saved: the Markdown was changed by someone else while you were editing (v${at} alice edited the Markdown). Your text is kept: Save Markdown again to save yours over it, or Discard my edits to see theirs.`,
    );
    expect((await read<{ markdown: string }>(h, `/notes/${noteId}`)).markdown).toBe("# Theirs");
    await person.locator('#markdown-form button[type="submit"]').click();
    await expect.poll(async () => (await read<{ markdown: string }>(h, `/notes/${noteId}`)).markdown, WAIT).toBe("# Mine");
    await expect.poll(status, WAIT).toMatch(/^Save Markdown: done/);
    expect(await area.inputValue()).toBe("# Mine");
    expect(person.problems).toEqual([]);
  });

  it("a reload with a slide's text typed and not saved asks first; staying keeps the text", async () => {
    const deck = orThrow(await h.people.addTab(noteId, { tab_type: "slides", label: "Kept deck" }), "add a deck").tab.id;
    orThrow(await h.people.setSlides(noteId, deck, { slides: [{ title: "Only" }], expected_version: await version() }), "fill it");
    const slideId = ((await read<{ slides: { id: string }[] }>(h, `/notes/${noteId}/tabs/${deck}`)).slides[0] as { id: string }).id;
    await person.locator(`#tab-strip button[data-tab-id="${deck}"]`).click();
    await person.locator(`[data-key="edit:${slideId}"]`).click();
    await person.locator(`[data-key="body:${slideId}"]`).fill("Typed, then a reload");
    const asked: string[] = [];
    person.once("dialog", (dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss(); // stay on the page
    });
    await person.reload({ timeout: 5_000 }).catch(() => undefined);
    expect(asked).toEqual(["beforeunload"]);
    expect(await person.locator(`[data-key="body:${slideId}"]`).inputValue()).toBe("Typed, then a reload");
    await person.locator(`[data-key="cancel:${slideId}"]`).click();
    expect(person.problems).toEqual([]);
  });
});
