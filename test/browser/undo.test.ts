/**
 * The person takes changes back from the activity feed (issue 25, acceptance 5):
 * an agent's slide update appears with an Undo button; "Show what changed"
 * shows its before and after; Undo from the keyboard brings the old body back
 * (the page and `GET /api/v1/notes/:id` agree) and the revert's own line offers
 * Redo, which brings the agent's draft back; the person's own edit on the page is undone the same way; and a
 * conflict (the person changed the slide since) is told in words naming the
 * person's later change, the Note left as it was. At 360 px, with a clipped
 * text shown (its whole length said), nothing scrolls sideways.
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
}

async function deckOf(noteId: string, tabId: string): Promise<{ version: number; slides: Slide[] }> {
  const note = await read<{ version: number; tabs: { id: string; slides?: Slide[] }[] }>(h, `/notes/${noteId}`);
  return { version: note.version, slides: note.tabs.find((tab) => tab.id === tabId)?.slides ?? [] };
}

/** A body over the 2,000 characters "Show what changed" shows, in one unbroken word (it must wrap at 360 px). */
const LONG = "w".repeat(2500);
const lineOf = (page: Page, version: number) => page.locator(`#feed li[data-version="${version}"]`);
const bodies = async (noteId: string, tabId: string) => (await deckOf(noteId, tabId)).slides.map((slide) => slide.body);
/** The slides' bodies as the page shows them. */
const bodiesOn = (page: Page) => page.locator(".slides > li .body").allTextContents();
/** Replaces the focused field's text, as typed. */
async function retype(page: Page, text: string): Promise<void> {
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.type(text);
}
/** The server's refusal the test asked for is the page's only problem so far: checked, then cleared. */
const onlyRefused = (page: OpenPage, route: RegExp) => {
  expect(page.problems).toEqual([expect.stringMatching(route)]);
  page.problems.length = 0;
};

describe("the person takes a change back from the feed", () => {
  it("undoes an agent's slide update and the person's own edit from the keyboard, shows what changed, redoes, and tells a conflict in words", async () => {
    const { noteId } = await newNote(h, "Undo");
    const tabId = orThrow(await h.people.addTab(noteId, { tab_type: "slides", label: "Q3" }), "add a deck").tab.id;
    const added = await h.people.request("POST", `/notes/${noteId}/tabs/${tabId}/slides`, { slides: [{ title: "Why", body: "Old why" }, { title: "What", body: "Old what" }] });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const [why, what] = (await deckOf(noteId, tabId)).slides as [Slide, Slide];
    const page = await openPage(h, noteId);
    try {
      await tabTo(page, `#tab-strip button[data-tab-id="${tabId}"]`);
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(tabId);
      // Lines that are not content (the Note's creation, its approval) offer no Undo; the tab's addition does.
      expect(await page.locator(`#feed li[data-operation="create_note"] button.undo`).count()).toBe(0);
      expect(await page.locator(`#feed li[data-operation="add_tab"] button.undo`).count()).toBe(1);

      // The agent's change appears, with its Undo; the log's re-read says it can be taken back.
      const agent = await call(client, "edit_note_tab", { note_id: noteId, expected_version: (await deckOf(noteId, tabId)).version, idempotency_key: "agent-1", tab_id: tabId, operation: "slide_update", slide_id: why.id, body: "The agent's draft" });
      const agentLine = lineOf(page, agent.version);
      await agentLine.waitFor(WAIT);
      await expect.poll(() => bodiesOn(page), WAIT).toEqual(["The agent's draft", "Old what"]);
      const agentUndo = agentLine.locator("button.undo");
      expect(await agentUndo.textContent()).toBe("Undo");
      expect(await agentUndo.getAttribute("aria-label")).toBe(`Undo v${agent.version}: ${AGENT} changed a slide in “Q3”: 1 slide`);
      await expect.poll(() => agentLine.locator(".undo-box").getAttribute("data-revertible"), WAIT).toBe("true");
      expect(await agentLine.locator(".undo-hint").isHidden()).toBe(true);

      // Show what changed: read on demand, before and after as text.
      await tabTo(page, `#feed li[data-version="${agent.version}"] summary`);
      await page.keyboard.press("Enter");
      const changed = agentLine.locator(".changed");
      await expect.poll(() => changed.getAttribute("data-state"), WAIT).toBe("shown");
      expect(await changed.locator(".changed-head").allTextContents()).toEqual([`Slide ${why.id}: updated`]);
      expect(await changed.locator("dt").allTextContents()).toEqual(["Body, before", "Body, after"]);
      expect(await changed.locator("dd pre").allTextContents()).toEqual(["Old why", "The agent's draft"]);

      // Undo, from the keyboard: the page and the API agree on the old body.
      await tabTo(page, `#feed li[data-version="${agent.version}"] button.undo`);
      await page.keyboard.press("Enter");
      await expect.poll(() => bodies(noteId, tabId), WAIT).toEqual(["Old why", "Old what"]);
      await expect.poll(() => bodiesOn(page), WAIT).toEqual(["Old why", "Old what"]);
      const revertLine = lineOf(page, agent.version + 1);
      await revertLine.waitFor(WAIT);
      expect(await revertLine.getAttribute("data-operation")).toBe("revert_change");
      expect(await revertLine.textContent()).toContain(`alice person took back v${agent.version} in “Q3” (${tabId}): 1 slide`);
      // Its own line offers Redo; the agent's line, taken back, says it cannot be taken back as things are now.
      expect(await revertLine.locator("button.undo").textContent()).toBe("Redo");
      expect(await revertLine.locator("button.undo").getAttribute("aria-label")).toBe(`Redo v${agent.version + 1}: alice took back v${agent.version} in “Q3”: 1 slide`);
      await expect.poll(() => agentLine.locator(".undo-box").getAttribute("data-revertible"), WAIT).toBe("false");
      expect(await agentLine.locator(".undo-hint").isVisible()).toBe(true);
      expect(await page.locator("#status").textContent()).toBe(`Undo v${agent.version}: done, version ${agent.version + 1}.`);

      // Redo: the agent's draft is back; the redo's own line is an Undo again (its target is a revert).
      await expect.poll(() => revertLine.locator(".undo-box").getAttribute("data-revertible"), WAIT).toBe("true");
      await tabTo(page, `#feed li[data-version="${agent.version + 1}"] button.undo`);
      await page.keyboard.press("Enter");
      await expect.poll(() => bodies(noteId, tabId), WAIT).toEqual(["The agent's draft", "Old what"]);
      await expect.poll(() => bodiesOn(page), WAIT).toEqual(["The agent's draft", "Old what"]);
      const redoLine = lineOf(page, agent.version + 2);
      await redoLine.waitFor(WAIT);
      expect(await redoLine.locator("button.undo").textContent()).toBe("Undo");

      // The person edits a slide's body on the page, then undoes it.
      await tabTo(page, '[aria-label="Edit slide 2: What"]');
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      await retype(page, "The person's what");
      await tabTo(page, '[aria-label="Save slide 2: What"]');
      await page.keyboard.press("Enter");
      await expect.poll(() => bodies(noteId, tabId), WAIT).toEqual(["The agent's draft", "The person's what"]);
      const edit = (await deckOf(noteId, tabId)).version;
      const editLine = lineOf(page, edit);
      await editLine.waitFor(WAIT);
      expect(await editLine.getAttribute("data-actor")).toBe("person");
      await expect.poll(() => editLine.locator(".undo-box").getAttribute("data-revertible"), WAIT).toBe("true");
      await tabTo(page, `#feed li[data-version="${edit}"] button.undo`);
      await page.keyboard.press("Enter");
      await expect.poll(() => bodies(noteId, tabId), WAIT).toEqual(["The agent's draft", "Old what"]);
      await expect.poll(() => bodiesOn(page), WAIT).toEqual(["The agent's draft", "Old what"]);
      expect(page.problems).toEqual([]);

      // A conflict: the agent changes a slide, the person changes the same slide since; Undo of the agent's change is refused in words.
      const agent2 = await call(client, "edit_note_tab", { note_id: noteId, expected_version: (await deckOf(noteId, tabId)).version, idempotency_key: "agent-2", tab_id: tabId, operation: "slide_update", slide_id: what.id, body: LONG });
      const person = await h.people.request("PATCH", `/notes/${noteId}/tabs/${tabId}/slides/${what.id}`, { body: "The person's second what", expected_version: agent2.version });
      expect(person.status, JSON.stringify(person.body)).toBe(200);
      const personVersion = (person.body as { version: number }).version;
      await lineOf(page, personVersion).waitFor(WAIT);
      await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(personVersion));
      const before = await read<unknown>(h, `/notes/${noteId}`);
      await tabTo(page, `#feed li[data-version="${agent2.version}"] button.undo`);
      await page.keyboard.press("Enter");
      const said = lineOf(page, agent2.version).locator(".undo-said");
      await expect.poll(() => said.textContent(), WAIT).toBe(
        `Undo v${agent2.version}: not done. alice changed this slide since (v${personVersion}): undo that first. Since then: v${personVersion} alice changed a slide in ${tabId}: 1 slide.`,
      );
      expect(await said.isVisible()).toBe(true);
      expect(await page.locator("#status").textContent()).toBe(await said.textContent());
      expect(await read<unknown>(h, `/notes/${noteId}`)).toEqual(before);
      onlyRefused(page, new RegExp(`^409 .*/changes/${agent2.version}/revert$`));

      // At 360 px, with what changed open, nothing scrolls sideways.
      await page.setViewportSize({ width: 360, height: 800 });
      await tabTo(page, `#feed li[data-version="${agent2.version}"] summary`);
      await page.keyboard.press("Enter");
      await expect.poll(() => lineOf(page, agent2.version).locator(".changed").getAttribute("data-state"), WAIT).toBe("shown");
      const long = lineOf(page, agent2.version).locator(".changed");
      expect(await long.locator("dt").allTextContents()).toEqual(["Body, before", "Body, after"]);
      expect(await long.locator("dd pre").allTextContents()).toEqual(["Old what", "w".repeat(2000)]);
      expect(await long.locator(".clipped").allTextContents()).toEqual([expect.stringMatching(/^Clipped: the whole text has 2.?500 characters\.$/)]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      // Nor the feed's own box (it scrolls up and down, never sideways).
      expect(await page.evaluate(() => { const feed = document.getElementById("feed") as HTMLElement; return feed.scrollWidth - feed.clientWidth; })).toBe(0);
      await shot(page, "page-undo.png", "#activity");
      expect(page.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  }, 240_000);
});
