/**
 * The person edits slides on the page (issue 24): a slide's title, body and
 * notes edited in place, a slide added, moved and deleted, each from the
 * keyboard, then checked through `GET /api/v1/notes/:id`, seen live by a
 * second page and by an agent's `list_note_changes` as the person's. And the
 * conflict (acceptance 2): the agent changes the slide the person is editing;
 * the person's text stays in the form, the conflict names the agent's change,
 * and the person saves theirs over it or discards theirs.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { orThrow } from "../../scripts/lib/person-api.js";
import { AGENT, call, newNote, openPage, read, shot, tabTo, useAgentClient, useBrowserHarness, WAIT, type Harness, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
const agent = useAgentClient(harness);
let h: Harness;
let client: Client;
beforeAll(() => {
  h = harness();
  client = agent();
});

interface Slide {
  id: string;
  title: string;
  body: string;
  notes: string;
}
interface WholeNote {
  version: number;
  tabs: { id: string; slides?: Slide[] }[];
}

async function deckOf(noteId: string, tabId: string): Promise<{ version: number; slides: Slide[] }> {
  const note = await read<WholeNote>(h, `/notes/${noteId}`);
  return { version: note.version, slides: note.tabs.find((tab) => tab.id === tabId)?.slides ?? [] };
}

/** A deck with these slides, through the person's API. */
async function newDeck(title: string, slides: { title: string; body?: string; notes?: string }[]): Promise<{ noteId: string; tabId: string }> {
  const { noteId } = await newNote(h, title);
  const tabId = orThrow(await h.people.addTab(noteId, { tab_type: "slides", label: "Deck" }), "add a deck").tab.id;
  const answer = await h.people.request("POST", `/notes/${noteId}/tabs/${tabId}/slides`, { slides });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { noteId, tabId };
}

async function selectDeck(page: Page, tabId: string): Promise<void> {
  await tabTo(page, `#tab-strip button[data-tab-id="${tabId}"]`);
  await page.keyboard.press("Enter");
  await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(tabId);
}

const titlesOn = (page: Page) => page.locator(".slides > li h3").allTextContents();
const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.getAttribute("name") ?? "");
/** Replaces the focused field's text, as typed. */
async function retype(page: Page, text: string): Promise<void> {
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  if (text !== "") await page.keyboard.type(text);
}

describe("the person edits slides on the page", () => {
  it("edits a slide in place, adds one, moves and deletes slides, from the keyboard: the API, a second page and the agent's list_note_changes all see the person's changes", async () => {
    const { noteId, tabId } = await newDeck("Slides on the page", [
      { title: "Why", body: "Line one\nline two\n\n- apples\n* pears\n1. first\n2. second\n<img src=x onerror=alert(1)>", notes: "Say it slowly" },
      { title: "What", body: "Plain" },
      { title: "How" },
    ]);
    const page = await openPage(h, noteId);
    const other = await openPage(h, noteId);
    try {
      await selectDeck(page, tabId);
      await selectDeck(other, tabId);
      const start = await deckOf(noteId, tabId);
      const [why, what, how] = start.slides as [Slide, Slide, Slide];

      // The body as a person reads it: line breaks kept, bullets and numbers as lists, markup as text.
      const body = page.locator(`.slides > li[data-slide-id="${why.id}"] .body`);
      expect(await body.locator("p").allTextContents()).toEqual(["Line one\nline two", "<img src=x onerror=alert(1)>"]);
      expect(await body.locator("ul > li").allTextContents()).toEqual(["apples", "pears"]);
      expect(await body.locator("ol > li").allTextContents()).toEqual(["first", "second"]);
      expect(await page.locator(".slides img").count()).toBe(0);

      // Edit: only the fields changed are sent, with the version the page shows.
      const sent: unknown[] = [];
      page.on("request", (request) => {
        if (request.method() === "PATCH" && request.url().includes("/slides/")) sent.push(request.postDataJSON());
      });
      await tabTo(page, '[aria-label="Edit slide 1: Why"]');
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe("title");
      expect(await page.locator(`li[data-slide-id="${why.id}"] form`).getAttribute("aria-label")).toBe("Edit slide 1: Why");
      await retype(page, "Why now");
      await page.keyboard.press("Tab");
      await retype(page, "We ship in May\n- a smaller team\n- one deck");
      await tabTo(page, '[aria-label="Save slide 1: Why"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => focusedLabel(page), WAIT).toBe("Edit slide 1: Why now");
      expect(sent).toEqual([{ title: "Why now", body: "We ship in May\n- a smaller team\n- one deck", expected_version: start.version }]);
      let deck = await deckOf(noteId, tabId);
      expect(deck.slides[0]).toEqual({ ...why, title: "Why now", body: "We ship in May\n- a smaller team\n- one deck", index: 0 });
      await expect.poll(() => titlesOn(other), WAIT).toEqual(["Why now", "What", "How"]);
      expect(await other.locator(`li[data-slide-id="${why.id}"] .body ul > li`).allTextContents()).toEqual(["a smaller team", "one deck"]);

      // The notes alone; then Escape cancels an edit and nothing is sent.
      await tabTo(page, '[aria-label="Edit slide 2: What"]');
      await page.keyboard.press("Enter");
      await tabTo(page, `li[data-slide-id="${what.id}"] textarea[name=notes]`);
      await page.keyboard.type("Two minutes");
      await page.keyboard.press("Enter"); // a new line in the notes, not a submit
      await page.keyboard.type("then questions");
      await tabTo(page, '[aria-label="Save slide 2: What"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => focusedLabel(page), WAIT).toBe("Edit slide 2: What");
      expect(sent.at(-1)).toEqual({ notes: "Two minutes\nthen questions", expected_version: start.version + 1 });
      await page.keyboard.press("Enter");
      await retype(page, "Not this");
      await page.keyboard.press("Escape");
      expect(await page.locator(`li[data-slide-id="${what.id}"] form`).count()).toBe(0);
      expect(await focusedLabel(page)).toBe("Edit slide 2: What");
      expect(sent.length).toBe(2);

      // Add: a title is required (said, nothing sent); then one at the end.
      const before = (await deckOf(noteId, tabId)).version;
      await tabTo(page, ".add-slide button[type=submit]");
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator(".add-slide .error").textContent(), WAIT).toBe("Title: required: a slide needs a title.");
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name)).toBe("title");
      await page.keyboard.type("Who");
      await page.keyboard.press("Tab");
      await page.keyboard.type("The team");
      await tabTo(page, ".add-slide button[type=submit]");
      await page.keyboard.press("Enter");
      await expect.poll(() => titlesOn(page), WAIT).toEqual(["Why now", "What", "How", "Who"]);
      deck = await deckOf(noteId, tabId);
      expect(deck.version).toBe(before + 1);
      const who = deck.slides[3] as Slide;
      expect(who).toMatchObject({ title: "Who", body: "The team", notes: "" });
      expect(await page.locator(".add-slide input[name=title]").inputValue()).toBe("");

      // Move: "Who" earlier three times, to the front (after_id null); the focus stays on its move buttons.
      await tabTo(page, '[aria-label="Move slide 4 earlier: Who"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => focusedLabel(page), WAIT).toBe("Move slide 3 earlier: Who");
      await page.keyboard.press("Enter");
      await expect.poll(() => focusedLabel(page), WAIT).toBe("Move slide 2 earlier: Who");
      await page.keyboard.press("Enter");
      await expect.poll(() => titlesOn(page), WAIT).toEqual(["Who", "Why now", "What", "How"]);
      expect(sent.slice(-3).map((body) => (body as { after_id: string | null }).after_id)).toEqual([what.id, why.id, null]);
      await expect.poll(() => focusedLabel(page), WAIT).toBe("Move slide 1 later: Who");
      await page.keyboard.press("Enter");
      await expect.poll(() => titlesOn(page), WAIT).toEqual(["Why now", "Who", "What", "How"]);
      expect((await deckOf(noteId, tabId)).slides.map((slide) => slide.id)).toEqual([why.id, who.id, what.id, how.id]);

      // Delete, after "Yes, delete"; Escape on the confirmation keeps the slide.
      await tabTo(page, '[aria-label="Delete slide 4: How"]');
      await page.keyboard.press("Enter");
      expect(await focusedLabel(page)).toBe("Yes, delete slide 4: How");
      await page.keyboard.press("Escape");
      expect(await focusedLabel(page)).toBe("Delete slide 4: How");
      await page.keyboard.press("Enter");
      await page.keyboard.press("Enter");
      await expect.poll(() => titlesOn(page), WAIT).toEqual(["Why now", "Who", "What"]);
      deck = await deckOf(noteId, tabId);
      expect(deck.slides.map((slide) => slide.title)).toEqual(["Why now", "Who", "What"]);
      await expect.poll(() => titlesOn(other), WAIT).toEqual(["Why now", "Who", "What"]);
      await expect.poll(() => other.locator("#note-version").textContent(), WAIT).toBe(String(deck.version));

      // The agent sees each of them as the person's.
      const log = await call(client, "list_note_changes", { note_id: noteId, since_version: start.version });
      expect(log.changes.map((entry: { actor: { kind: string }; operation: string }) => [entry.actor.kind, entry.operation])).toEqual(
        ["slide_update", "slide_update", "slides_add_outline", "slide_move", "slide_move", "slide_move", "slide_move", "slide_delete"].map((operation) => ["person", operation]),
      );

      // 360 px wide, with a form open: nothing wider than the screen.
      await page.setViewportSize({ width: 360, height: 800 });
      await tabTo(page, '[aria-label="Edit slide 1: Why now"]');
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await page.keyboard.press("Escape");
      expect(page.problems).toEqual([]);
      expect(other.problems).toEqual([]);
    } finally {
      await page.context().close();
      await other.context().close();
    }
  });

  it("acceptance 2: the agent changes the slide the person is editing; the person's text stays, the conflict names the agent's change; 'Save mine over it' and 'Discard mine' each do what they say", async () => {
    const { noteId, tabId } = await newDeck("Conflict", [{ title: "Plan", body: "First draft" }, { title: "Risks" }]);
    const [plan] = (await deckOf(noteId, tabId)).slides as [Slide];
    const agentEdit = async (body: string): Promise<number> => {
      const { version } = await deckOf(noteId, tabId);
      const answer = await call(client, "edit_note_tab", { note_id: noteId, expected_version: version, idempotency_key: crypto.randomUUID(), tab_id: tabId, operation: "slide_update", slide_id: plan.id, body });
      return answer.version as number;
    };
    const bodyField = (page: Page) => page.locator(`li[data-slide-id="${plan.id}"] textarea[name=body]`);
    const conflictText = (page: Page) => page.locator(`li[data-slide-id="${plan.id}"] .conflict [role=alert]`);

    // Round 1, on a page whose live socket is silent: the save goes on the version it showed, and the API refuses it.
    const quiet = await openPage(h, noteId, { beforeOpen: (context) => context.routeWebSocket(/\/live/, () => {}) });
    try {
      await selectDeck(quiet, tabId);
      await tabTo(quiet, '[aria-label="Edit slide 1: Plan"]');
      await quiet.keyboard.press("Enter");
      await quiet.keyboard.press("Tab");
      await retype(quiet, "Mine, round 1");
      const agentVersion = await agentEdit("The agent's, round 1");
      await tabTo(quiet, '[aria-label="Save slide 1: Plan"]');
      await quiet.keyboard.press("Enter");
      await expect.poll(() => conflictText(quiet).textContent(), WAIT).toContain(`v${agentVersion} ${AGENT} changed a slide in ${tabId}: 1 slide`);
      expect(await bodyField(quiet).inputValue()).toBe("Mine, round 1");
      expect((await deckOf(noteId, tabId)).slides[0]?.body).toBe("The agent's, round 1");
      expect(await quiet.locator(`li[data-slide-id="${plan.id}"] .conflict dd`).allTextContents()).toEqual(["The agent's, round 1"]);
      // Save again is not a way around the choice.
      await tabTo(quiet, '[aria-label="Save slide 1: Plan"]');
      await quiet.keyboard.press("Enter");
      expect(await focusedLabel(quiet)).toBe("Save mine over it (slide 1: Plan)");
      await quiet.keyboard.press("Enter");
      await expect.poll(async () => (await deckOf(noteId, tabId)).slides[0]?.body, WAIT).toBe("Mine, round 1");
      await expect.poll(() => focusedLabel(quiet), WAIT).toBe("Edit slide 1: Plan");
      expect(await quiet.locator(`li[data-slide-id="${plan.id}"] .body`).textContent()).toBe("Mine, round 1");
      // The one refused save, and nothing else went wrong.
      expect(quiet.problems).toEqual([expect.stringMatching(new RegExp(`^409 .*/slides/${plan.id}$`))]);
    } finally {
      await quiet.context().close();
    }

    // Round 2, live: the agent's change arrives while the form is open; other slides still update; "Discard mine".
    const page = await openPage(h, noteId);
    try {
      await selectDeck(page, tabId);
      await tabTo(page, '[aria-label="Edit slide 1: Plan"]');
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      await retype(page, "Mine, round 2");
      const agentVersion = await agentEdit("The agent's, round 2");
      const added = await call(client, "edit_note_tab", { note_id: noteId, expected_version: agentVersion, idempotency_key: crypto.randomUUID(), tab_id: tabId, operation: "slide_add", title: "Added by the agent" });
      await expect.poll(() => titlesOn(page), WAIT).toEqual(["Risks", "Added by the agent"]);
      await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(added.version));
      expect(await bodyField(page).inputValue()).toBe("Mine, round 2");
      expect(await page.evaluate(() => (document.activeElement as HTMLTextAreaElement | null)?.name)).toBe("body");
      await tabTo(page, '[aria-label="Save slide 1: Plan"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => conflictText(page).textContent(), WAIT).toContain(`v${agentVersion} ${AGENT} changed a slide in ${tabId}: 1 slide`);
      expect(await page.locator("#status").textContent()).toContain(AGENT);
      await shot(page, "page-slide-conflict.png", "#tab-panel");
      expect(await bodyField(page).inputValue()).toBe("Mine, round 2");
      expect((await deckOf(noteId, tabId)).version).toBe(added.version);
      await tabTo(page, '[aria-label="Discard mine (slide 1: Plan)"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator(`li[data-slide-id="${plan.id}"] .body`).textContent(), WAIT).toBe("The agent's, round 2");
      expect(await focusedLabel(page)).toBe("Edit slide 1: Plan");
      const deck = await deckOf(noteId, tabId);
      expect(deck.slides.map((slide) => [slide.title, slide.body])).toEqual([
        ["Plan", "The agent's, round 2"],
        ["Risks", ""],
        ["Added by the agent", ""],
      ]);
      expect(deck.version).toBe(added.version);

      // The slide deleted while its form is open: the person's text stays, and can become a new slide.
      const risks = deck.slides[1] as Slide;
      await tabTo(page, '[aria-label="Edit slide 2: Risks"]');
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      await page.keyboard.type("Late hardware");
      await call(client, "edit_note_tab", { note_id: noteId, expected_version: deck.version, idempotency_key: crypto.randomUUID(), tab_id: tabId, operation: "slide_delete", slide_id: risks.id });
      const gone = page.locator(`li[data-slide-id="${risks.id}"]`);
      await expect.poll(() => gone.locator(".conflict [role=alert]").textContent(), WAIT).toContain(`This slide was deleted while you were editing it (v${deck.version + 1} ${AGENT} deleted a slide from ${tabId}: 1 slide)`);
      expect(await gone.locator("textarea[name=body]").inputValue()).toBe("Late hardware");
      await tabTo(page, '[aria-label="Add mine as a new slide (slide 2: Risks)"]');
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await deckOf(noteId, tabId)).slides.map((slide) => [slide.title, slide.body]), WAIT).toEqual([
        ["Plan", "The agent's, round 2"],
        ["Added by the agent", ""],
        ["Risks", "Late hardware"],
      ]);
      await expect.poll(() => titlesOn(page), WAIT).toEqual(["Plan", "Added by the agent", "Risks"]);
      expect(await page.locator(`li[data-slide-id="${risks.id}"]`).count()).toBe(0);
      expect(page.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
