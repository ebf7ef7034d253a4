/**
 * Issue 26, the person's side: the Note page's search box. The person types
 * words, the page asks GET /api/v1/search for this Note, and each hit (a
 * slide, a Sheet row, the Markdown, a source) shows its kind, its title, its
 * exact ID and a snippet, as text, and links to its tab: followed from the
 * keyboard, the tab opens in place and the slide or row found is marked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { orThrow, type PersonApi } from "../../scripts/lib/person-api.js";
import { openPage, shot, tabTo, useBrowserHarness, WAIT, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let people: PersonApi;
beforeAll(() => {
  ({ people } = harness());
});

/** Markup in a slide's text: it must show as text in a hit's title and snippet. */
const MARKUP = `<img src=x onerror=alert(1)><script>alert(2)</script>`;

/** The hits the page shows: each one's kind, title, ID, snippet and link. */
function hitsOf(page: OpenPage): Promise<{ id: string; kind: string; title: string; code: string; snippet: string; href: string | null }[]> {
  return page.locator("#search-results li").evaluateAll((items) =>
    items.map((li) => ({
      id: li.getAttribute("data-hit-id") ?? "",
      kind: li.querySelector(".badge")?.textContent ?? "",
      title: li.querySelector("bdi")?.textContent ?? "",
      code: li.querySelector("code")?.textContent ?? "",
      snippet: li.querySelector(".snippet")?.textContent ?? "",
      href: li.querySelector("a")?.getAttribute("href") ?? null,
    })),
  );
}

/** Types `words` into the search box from the keyboard and sends them with Enter; waits for the answer. */
async function search(page: OpenPage, words: string): Promise<void> {
  await tabTo(page, '#search-note input[name="q"]');
  await page.keyboard.press("Control+A");
  await page.keyboard.type(words);
  const answered = page.waitForResponse((response) => response.url().includes("/api/v1/search?"), WAIT);
  await page.keyboard.press("Enter");
  await answered;
  await expect.poll(() => page.locator("#search-summary").textContent(), WAIT).not.toBe("Searching…");
}

describe("the Note page's search box", () => {
  it("finds a slide, a row, the Markdown and a source of this Note, as text, and opens each from the keyboard", async () => {
    const noteId = `search-${crypto.randomUUID()}`;
    await people.createApprovedNote(noteId, "Trip planning");
    const deck = orThrow(await people.addTab(noteId, { tab_type: "slides", label: "Deck" }), "add a deck").tab;
    const slides = await people.request("POST", `/notes/${noteId}/tabs/${deck.id}/slides`, {
      slides: [
        { title: "Opening", body: "Welcome" },
        { title: "Itinerary", body: `Day one: 大阪城 then the aquarium ${MARKUP}` },
      ],
    });
    expect(slides.status, JSON.stringify(slides.body)).toBe(201);
    const slideId = (slides.body as { slide_ids: string[] }).slide_ids[1] as string;
    const sheet = orThrow(await people.addTab(noteId, { tab_type: "sheet", label: "Contacts" }), "add a Sheet").tab;
    expect((await people.request("POST", `/notes/${noteId}/tabs/${sheet.id}/columns`, { columns: ["Name", "City"] })).status).toBe(201);
    const rows = await people.request("POST", `/notes/${noteId}/tabs/${sheet.id}/rows`, { rows: [{ Name: "Chiara", City: "Perugia" }, { Name: "Kenji", City: "Sapporo" }] });
    expect(rows.status, JSON.stringify(rows.body)).toBe(201);
    const rowId = (rows.body as { row_ids: string[] }).row_ids[1] as string;
    expect((await people.request("PUT", `/notes/${noteId}/markdown`, { text: "# Budget\n\nThe ryokan costs perché it is central." })).status).toBe(200);
    const version = ((await people.request("GET", `/notes/${noteId}`)).body as { version: number }).version;
    const cited = await people.request("POST", `/notes/${noteId}/sources`, { title: "Rail pass guide", url: "https://example.org/rail", expected_version: version });
    expect(cited.status, JSON.stringify(cited.body)).toBe(201);

    const page = await openPage(harness(), noteId);
    // A slide, by a word inside Japanese text: its kind, title, ID, and the snippet with the markup as text.
    await search(page, "大阪");
    const castle = await hitsOf(page);
    expect(castle.map((hit) => [hit.kind, hit.title, hit.code])).toEqual([["Slide", "Itinerary", slideId]]);
    expect(castle[0]?.snippet).toContain("大阪城");
    expect(castle[0]?.snippet).toContain(MARKUP);
    expect(castle[0]?.href).toBe(`?tab=${deck.id}`);
    expect(await page.locator("#search-results img, #search-results script").count()).toBe(0);
    expect(await page.locator("#search-summary").textContent()).toBe("1 hit for “大阪”.");
    await shot(page, "search.png", "#search");

    // Followed from the keyboard: the deck opens in place, on the slide found.
    await page.locator("#tab-strip button[data-tab-id='markdown']").click();
    await tabTo(page, `#search-results a[href="?tab=${deck.id}"]`);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(deck.id);
    await expect.poll(() => page.locator(`[data-slide-id="${slideId}"]`).getAttribute("class"), WAIT).toContain("found");
    expect(new URL(page.url()).searchParams.get("tab")).toBe(deck.id);

    // A row, by a city; the Sheet opens on it.
    await search(page, "SAPPORO");
    const kenji = await hitsOf(page);
    expect(kenji.map((hit) => [hit.kind, hit.code])).toEqual([["Row", rowId]]);
    await tabTo(page, `#search-results a[href="?tab=${sheet.id}"]`);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(sheet.id);
    await expect.poll(() => page.locator(`tr[data-row-id="${rowId}"]`).getAttribute("class"), WAIT).toContain("found");

    // The Markdown, with its accent folded; a source by its title.
    await search(page, "perche");
    expect((await hitsOf(page)).map((hit) => [hit.kind, hit.href])).toEqual([["Markdown", "?tab=markdown"]]);
    await search(page, "rail guide");
    const rail = await hitsOf(page);
    expect(rail.map((hit) => [hit.kind, hit.title, hit.href])).toEqual([["Source", "Rail pass guide", "?tab=sources"]]);

    // Nothing found, said; FTS5's syntax is only text; blank is told, not sent.
    await search(page, "zanzibar");
    expect(await hitsOf(page)).toEqual([]);
    expect(await page.locator("#search-summary").textContent()).toBe("Nothing in this Note matches “zanzibar”.");
    await search(page, 'NEAR("sapporo" *) OR col:^-');
    expect((await hitsOf(page)).map((hit) => hit.code)).toContain(rowId);
    let sent = 0;
    page.on("request", (request) => {
      if (request.url().includes("/api/v1/search?")) sent += 1;
    });
    await tabTo(page, '#search-note input[name="q"]');
    await page.keyboard.press("Control+A");
    await page.keyboard.type("   ");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#search-summary").textContent(), WAIT).toBe("Type the words to find.");
    expect(await hitsOf(page)).toEqual([]);
    expect(sent).toBe(0);
    expect(page.problems).toEqual([]);
  });
});
