/**
 * The home and the Note page's way around (issue 24): `/notes/` lists the
 * person's 250 Notes a page at a time, filters them by title and opens one;
 * Create a Note opens the new Note; the Note page opens on `?tab=`, else on
 * the tab changed last, and keeps the selected tab in the URL across a
 * reload; a Note out of reach links home; the Note's title and members
 * change from the page, as `GET /api/v1/notes/:id` then shows.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { orThrow, type PersonApi } from "../../scripts/lib/person-api.js";
import { newNote, openPage, openPath, read, shot, useBrowserHarness, WAIT, type Harness, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let h: Harness;
let people: PersonApi;
beforeAll(() => {
  h = harness();
  people = h.people;
});

const NOTES = 250;
const number = (i: number) => String(i).padStart(3, "0");

/** The Note IDs the home shows now. */
const shown = (page: OpenPage) => page.locator("#notes li").evaluateAll((items) => items.map((li) => li.getAttribute("data-note-id") ?? ""));

/** Every Note alice can use, by the API's own paging: what the home must show, once each. */
async function allNotes(): Promise<{ note_id: string; title: string; approved: boolean }[]> {
  const notes: { note_id: string; title: string; approved: boolean }[] = [];
  let cursor: string | null = null;
  do {
    const answer: { notes: typeof notes; next_cursor: string | null } = await read(h, `/notes?limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
    notes.push(...answer.notes);
    cursor = answer.next_cursor;
  } while (cursor !== null);
  return notes;
}

/**
 * Creates a Note; sent again when wrangler dev answers 503 "restarted mid-request" (it does not retry a POST
 * itself), where a Note the first try made answers note_exists.
 */
async function create(noteId: string, title: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await people.request("POST", "/notes", { note_id: noteId, title });
    if (answer.status === 201 || (attempt > 1 && answer.status === 409)) return;
    if (answer.status !== 503 || attempt === 3) throw new Error(`could not create ${noteId}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

describe("the home, /notes/", () => {
  it("with 250 Notes: pages through them (each once), filters by title as the person types, opens one; Create a Note opens the new Note; no horizontal scroll at 360 px", async () => {
    // 250 Notes through the person's API, 10 at a time; every 25th approved for connectors.
    const ids = Array.from({ length: NOTES }, (_, i) => `home-${number(i + 1)}`);
    for (let batch = 0; batch < NOTES; batch += 10) {
      await Promise.all(
        ids.slice(batch, batch + 10).map(async (noteId, j) => {
          const n = batch + j + 1;
          await create(noteId, `Report ${number(n)}`);
          if (n % 25 === 0) orThrow(await people.setApproval(noteId, { approved: true }), `approve ${noteId}`);
        }),
      );
    }
    const expected = await allNotes();
    expect(expected.length).toBeGreaterThanOrEqual(NOTES);

    const page = await openPath(h, "/notes/");
    await page.locator("#notes li").first().waitFor(WAIT);
    expect(await page.title()).toBe("Your Notes · osFoundry Notes");
    // Page by page with Next: every Note once, in the API's order, 50 to a page.
    const seen: string[] = [];
    for (let pageNumber = 1; ; pageNumber += 1) {
      const ids = await shown(page);
      expect(ids.length).toBeLessThanOrEqual(50);
      expect(await page.locator("#notes-range").textContent()).toContain(`Notes ${seen.length + 1}–${seen.length + ids.length}`);
      seen.push(...ids);
      const next = page.locator("#next-page");
      if (await next.isDisabled()) break;
      await next.click();
      await expect.poll(() => page.locator("#notes-range").textContent(), WAIT).toContain(`Notes ${seen.length + 1}–`);
      expect(pageNumber).toBeLessThan(10);
    }
    expect(seen).toEqual(expected.map((note) => note.note_id));
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);
    // Previous goes back a page.
    await page.locator("#previous-page").click();
    const lastStart = Math.floor((seen.length - 1) / 50) * 50;
    await expect.poll(() => shown(page), WAIT).toEqual(seen.slice(lastStart - 50, lastStart));

    // The filter, typed (any case): one read once the typing rests, not one per key; back to the first page.
    let filtered = 0;
    page.on("request", (request) => {
      if (request.url().includes("/api/v1/notes?") && request.url().includes("title_contains=")) filtered += 1;
    });
    const filter = page.getByLabel("Titles containing");
    await filter.focus();
    await page.keyboard.type("report 12");
    await expect.poll(() => shown(page), WAIT).toEqual(ids.slice(119, 129));
    expect(filtered).toBeGreaterThanOrEqual(1);
    expect(filtered).toBeLessThan("report 12".length);
    expect(await page.locator("#notes-range").textContent()).toBe("Notes 1–10 whose title contains “report 12”.");
    // The person's filter is isolated, so a direction mark in it cannot reorder the sentence.
    expect(await page.locator("#notes-range bdi").textContent()).toBe("report 12");
    expect(await page.locator("#next-page").isDisabled()).toBe(true);
    expect(await page.locator("#previous-page").isDisabled()).toBe(true);
    await page.keyboard.type("x");
    await expect.poll(() => page.locator("#notes-range").textContent(), WAIT).toBe("No Note whose title contains “report 12x”.");
    for (let i = 0; i < "12x".length; i += 1) await page.keyboard.press("Backspace");
    await page.keyboard.type("22");
    await expect.poll(() => shown(page), WAIT).toEqual(ids.slice(219, 229));

    // Each entry: the title as text in <bdi>, a link to the Note's page, whether connectors are approved.
    const item = page.locator('#notes li[data-note-id="home-225"]');
    expect(await item.locator("a").getAttribute("href")).toBe("/notes/home-225");
    expect(await item.locator("a bdi").textContent()).toBe("Report 225");
    expect(await item.locator(".badge").textContent()).toBe("connectors approved");
    expect(await page.locator('#notes li[data-note-id="home-224"] .badge').textContent()).toBe("connectors not approved");

    // 360 px: nothing wider than the screen.
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await shot(page, "page-home.png");
    await page.setViewportSize({ width: 1280, height: 900 });

    // A Note opens from the list.
    await page.getByRole("link", { name: "Report 225" }).click();
    await page.waitForURL(/\/notes\/home-225$/, WAIT);
    await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
    expect(await page.locator("#note-title").textContent()).toBe("Report 225");

    // Back home by the header's link; Create a Note, from the keyboard, opens the new Note.
    await page.getByRole("link", { name: "Your Notes" }).click();
    await page.waitForURL(/\/notes\/$/, WAIT);
    const title = page.getByLabel("Title", { exact: true });
    await title.fill("Quarterly plan ‮evil");
    await title.press("Enter");
    await page.waitForURL((url) => /^\/notes\/[A-Za-z0-9_-]+$/.test(url.pathname), WAIT);
    await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
    const created = decodeURIComponent(new URL(page.url()).pathname.split("/")[2] ?? "");
    expect(await page.locator("#note-title bdi").textContent()).toBe("Quarterly plan ‮evil");
    expect(await read<{ title: string; members: string[] }>(h, `/notes/${encodeURIComponent(created)}`)).toMatchObject({ title: "Quarterly plan ‮evil", members: ["alice"] });
    expect((await allNotes()).map((note) => note.note_id)).toContain(created);

    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("sends a person who is not signed in to sign in, and back to the home", async () => {
    // openPath goes through the page's 401, the consent page, and lands where it started.
    const page = await openPath(h, "/notes/");
    await page.locator("#notes li").first().waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe("/notes/");
    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});

describe("the Note page opens where the work is", () => {
  it("opens on ?tab=, else on the tab changed last; the selected tab is in the URL and survives a reload; an unknown tab falls back and says so", async () => {
    const { noteId } = await newNote(h, "Where the work is");
    const add = async (tab_type: "slides" | "sheet", label: string) => orThrow(await people.addTab(noteId, { tab_type, label }), `add ${label}`).tab.id;
    const intro = await add("slides", "Intro");
    const budget = await add("sheet", "Budget");
    const deck = await add("slides", "Deck B");
    // The last change is to the Budget (not the newest tab, not the first Slides tab).
    const columns = await people.request("POST", `/notes/${noteId}/tabs/${budget}/columns`, { columns: ["Item", "Cost"] });
    expect(columns.status).toBe(201);

    const page = await openPage(h, noteId);
    const selected = () => page.locator("#tab-panel").getAttribute("data-tab-id");
    await expect.poll(selected, WAIT).toBe(budget);
    expect(new URL(page.url()).searchParams.get("tab")).toBe(budget);

    // Selecting a tab puts it in the URL; a reload opens on it.
    await page.locator(`#tab-strip button[data-tab-id="${intro}"]`).click();
    await expect.poll(selected, WAIT).toBe(intro);
    expect(new URL(page.url()).searchParams.get("tab")).toBe(intro);
    await page.reload();
    await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
    await expect.poll(selected, WAIT).toBe(intro);
    expect(await page.locator(`#tab-strip button[data-tab-id="${intro}"]`).getAttribute("aria-pressed")).toBe("true");

    // ?tab= opens that tab, though another changed last.
    await page.goto(`${h.server.url}/notes/${noteId}?tab=${deck}`);
    await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
    await expect.poll(selected, WAIT).toBe(deck);
    expect(await page.locator("#tab-panel-title").textContent()).toBe("Deck B");

    // A tab the Note does not have: the page says so and opens on the tab changed last.
    await page.goto(`${h.server.url}/notes/${noteId}?tab=slides-999-gone`);
    await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
    await expect.poll(selected, WAIT).toBe(budget);
    expect(await page.locator("#status").textContent()).toBe('This Note has no tab "slides-999-gone" (it was deleted, or the link is wrong): showing “Budget” instead.');
    expect(new URL(page.url()).searchParams.get("tab")).toBe(budget);

    // The feed's link to a tab selects it in place: no reload (the mark stays), the URL follows, the keyboard is on the tab.
    await page.evaluate(() => Object.assign(window, { stayedOpen: true }));
    await page.locator(`#feed a[data-tab-id="${deck}"]`).first().click();
    await expect.poll(selected, WAIT).toBe(deck);
    expect(new URL(page.url()).searchParams.get("tab")).toBe(deck);
    expect(await page.evaluate(() => (window as unknown as { stayedOpen?: boolean }).stayedOpen)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-tab-id"))).toBe(deck);

    expect(page.problems).toEqual([]);
    await page.context().close();
  });
});

describe("the way home, the Note's title and members", () => {
  it("a Note you cannot open says so and links to your Notes", async () => {
    const page = await openPath(h, "/notes/no-such-note-here", { live: false });
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toContain('There is no Note "no-such-note-here" that you can use');
    const home = page.locator("#gone-home a");
    expect(await home.isVisible()).toBe(true);
    expect(await home.textContent()).toBe("Your Notes");
    expect(await home.getAttribute("href")).toBe("/notes/");
    await home.click();
    await page.waitForURL(/\/notes\/$/, WAIT);
    await page.locator("#notes li").first().waitFor(WAIT);
    // The read that found no Note is the only failed request.
    expect(page.problems).toEqual([`404 ${h.server.url}/api/v1/notes/no-such-note-here`]);
    await page.context().close();
  });

  it("renames the Note in place (a conflict keeps the typed title and names the change), adds and removes a member; refusals are said in a person's words", async () => {
    const { noteId } = await newNote(h, "Before");
    // The socket opens but never speaks: the page learns of another's change only when it writes (a conflict).
    const page = await openPage(h, noteId, { beforeOpen: (context) => context.routeWebSocket(/\/live/, () => {}) });
    const note = () => read<{ title: string; members: string[]; version: number }>(h, `/notes/${noteId}`);

    // Rename from the header: labelled field, Save.
    await page.getByRole("button", { name: "Rename the Note" }).click();
    const field = page.getByLabel("Note title");
    expect(await field.inputValue()).toBe("Before");
    await field.fill("After");
    await field.press("Enter");
    await expect.poll(async () => (await note()).title, WAIT).toBe("After");
    await expect.poll(() => page.locator("#note-title").textContent(), WAIT).toBe("After");
    expect(await page.locator("#note-title-form").isHidden()).toBe(true);

    // Someone else changes the Note while the person types: the title is kept, the conflict names the change; Save again applies it.
    await page.getByRole("button", { name: "Rename the Note" }).click();
    await field.fill("Mine");
    const { version } = await note();
    orThrow(await people.renameNote(noteId, { title: "Theirs", expected_version: version }), "rename");
    await page.getByRole("button", { name: "Save title" }).click();
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toContain("Rename the Note: not done.");
    expect(await page.locator("#status").textContent()).toContain(`v${version + 1} alice`);
    // The re-read shows their title in the heading; the field keeps the person's.
    await expect.poll(() => page.locator("#note-title").textContent(), WAIT).toBe("Theirs");
    expect(await field.inputValue()).toBe("Mine");
    expect((await note()).title).toBe("Theirs");
    await page.getByRole("button", { name: "Save title" }).click();
    await expect.poll(async () => (await note()).title, WAIT).toBe("Mine");

    // Add a member, then remove them (with a confirmation).
    const user = page.getByLabel("User ID");
    await user.fill("bob");
    await user.press("Enter");
    await expect.poll(async () => (await note()).members, WAIT).toEqual(["alice", "bob"]);
    await page.locator('#members li[data-user="bob"]').waitFor(WAIT);
    await page.getByRole("button", { name: "Remove bob" }).click();
    expect((await note()).members).toEqual(["alice", "bob"]);
    await page.getByRole("button", { name: "Yes, remove bob" }).click();
    await expect.poll(async () => (await note()).members, WAIT).toEqual(["alice"]);
    await expect.poll(() => page.locator("#members li").count(), WAIT).toBe(1);

    // The only member cannot be removed: the server's words, and nothing changes.
    const before = await note();
    await page.getByRole("button", { name: "Remove alice" }).click();
    await page.getByRole("button", { name: "Yes, remove alice" }).click();
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toContain("is the Note's only member");
    expect(await note()).toEqual(before);

    // A refusal names the field as the page labels it, not in the API's wording.
    await user.fill("bo\u0007b");
    await user.press("Enter");
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toBe("Add bo\u0007b: not done. The user ID contains a character that cannot be typed into it (U+0007, character 3).");
    // The label fields take what the server takes: 100 characters, not 200.
    const label = page.locator("#add-tab input[name=label]");
    await label.fill("x".repeat(150));
    expect((await label.inputValue()).length).toBe(100);
    // Past the field's limit (its maxlength taken away, as an old page or a paste tool might), the server's refusal in the page's words.
    await label.evaluate((input) => input.removeAttribute("maxlength"));
    await label.fill("x".repeat(150));
    await label.press("Enter");
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toBe("Add tab: not done. The label is too long: at most 100 characters (it has 150).");
    expect((await note()).version).toBe(before.version);

    const refused = page.problems.filter((problem) => problem.startsWith("409 ") || problem.startsWith("400 "));
    expect(refused.map((problem) => problem.split(" ")[0])).toEqual(["409", "400", "400", "400"]);
    expect(page.problems.length).toBe(refused.length);
    await page.context().close();
  });
});
