/**
 * The person's page in a real browser (issue 13, acceptance 1 and 2):
 * headless Chromium (Debian's package, driven by playwright-core, never a
 * downloaded browser) against `wrangler dev`, signed in the way a person is
 * (the page's 401 sends it to /notes/sign-in and the local consent page).
 * An agent builds a deck through the official MCP client while the page is
 * open; the person renames it from the keyboard; the server restarts while
 * writes go on, and the page catches up with nothing missing or doubled.
 * `npm run screenshots` saves the README's screenshots from it into docs/.
 */
import { expect, beforeAll, describe, it } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { orThrow, type PersonApi } from "../../scripts/lib/person-api.js";
import type { LocalServer } from "../../scripts/local-server.js";
import { AGENT, call, feedOf, newNote as newNoteOf, openPage as openPageOf, read as readOf, restartServer, shot, tabStrip, tabTo, useBrowserHarness, WAIT, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let server: LocalServer;
let people: PersonApi;
let agentToken = "";
beforeAll(() => {
  ({ server, people, agentToken } = harness());
});

const newNote = (title: string) => newNoteOf(harness(), title);
const openPage = (noteId: string, options: Parameters<typeof openPageOf>[2] = {}) => openPageOf(harness(), noteId, options);
const read = <T,>(path: string) => readOf<T>(harness(), path);

describe("the person's page, live", () => {
  it("acceptance 1: an agent's 12-slide deck appears without a reload under the client's name; the person renames it from the keyboard; the agent sees the new label under the same ID; the feed lists both in order", async () => {
    const { noteId, version } = await newNote("Launch plan");
    const page = await openPage(noteId);
    await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(version));
    // A reload would lose this mark: it proves the deck arrives over the socket.
    await page.evaluate(() => Object.assign(window, { stayedOpen: true }));

    const client = await connectClient(server.mcpUrl, agentToken);
    try {
      await client.listTools();
      const outline = Array.from({ length: 12 }, (_, i) => ({ title: `Slide ${i + 1}: ${["Why", "What", "How", "When"][i % 4]}`, body: `Point ${i + 1} of the plan`, notes: `Say it in 30 s (${i + 1})` }));
      const sent = Date.now();
      const deck = await call(client, "create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", label: "Q3 launch", slides: outline });
      expect(deck).toMatchObject({ slide_count: 12, version: version + 1 });
      const tabButton = page.locator(`#tab-strip button[data-tab-id="${deck.tab_id}"]`);
      await tabButton.waitFor(WAIT);
      const appeared = Date.now() - sent;
      const agentLine = page.locator(`#feed li[data-version="${version + 1}"]`);
      await agentLine.waitFor(WAIT);
      console.log(`acceptance 1: the agent's deck was on the page ${appeared} ms after create_note_tab was sent`);
      expect(await page.evaluate(() => (window as unknown as { stayedOpen?: boolean }).stayedOpen)).toBe(true);
      expect(await agentLine.getAttribute("data-actor")).toBe("agent");
      expect(await agentLine.getAttribute("data-operation")).toBe("create_tab");
      expect(await agentLine.textContent()).toContain(AGENT);
      await expect.poll(() => agentLine.locator(".tab").textContent(), WAIT).toBe(`“Q3 launch” (${deck.tab_id})`);
      expect(await tabButton.textContent()).toContain(deck.tab_id);

      // The person picks the deck and renames it, from the keyboard only.
      await tabTo(page, `#tab-strip button[data-tab-id="${deck.tab_id}"]`);
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(deck.tab_id);
      expect(await page.locator("#rename-tab input[name=label]").inputValue()).toBe("Q3 launch");
      const titles = await page.locator(".slides li h3").allTextContents();
      expect(titles).toEqual(outline.map((slide) => slide.title));
      expect(await page.locator(".slides li").evaluateAll((items) => items.map((li) => li.getAttribute("data-slide-id")))).toEqual(deck.slide_ids);
      await shot(page, "page-deck.png", "window");

      await tabTo(page, "#rename-tab input[name=label]");
      await page.keyboard.press("Control+A");
      await page.keyboard.type("Q3 launch (final)");
      await page.keyboard.press("Enter");
      await expect.poll(() => tabButton.locator(".label").textContent(), WAIT).toBe("Q3 launch (final)");
      const personLine = page.locator(`#feed li[data-version="${version + 2}"]`);
      await personLine.waitFor(WAIT);
      expect(await personLine.getAttribute("data-actor")).toBe("person");
      expect(await personLine.getAttribute("data-operation")).toBe("rename_tab");

      const listed = await call(client, "list_note_tabs", { note_id: noteId });
      expect(listed.version).toBe(version + 2);
      expect(listed.tabs.find((tab: { id: string }) => tab.id === deck.tab_id)).toMatchObject({ id: deck.tab_id, label: "Q3 launch (final)", slide_count: 12 });

      // The feed, newest first: the person's rename, then the agent's deck, each once.
      const feed = await feedOf(page);
      expect(feed.map((line) => [line.version, line.actor, line.operation]).slice(0, 2)).toEqual([
        [version + 2, "person", "rename_tab"],
        [version + 1, "agent", "create_tab"],
      ]);
      expect(new Set(feed.map((line) => line.version)).size).toBe(feed.length);
      expect(await page.locator("#tab-strip button").count()).toBe(listed.tabs.length);
      await shot(page, "page-activity.png", "#activity");

      // A 360-pixel-wide screen: nothing wider than the screen, the strip and the deck still there.
      await page.setViewportSize({ width: 360, height: 800 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await shot(page, "page-narrow.png", "window");
      expect(page.problems).toEqual([]);
    } finally {
      await client.close();
      await page.context().close();
    }
  });

  it("acceptance 2: the server restarts while writes go on; the page catches up: its version, tabs, deck and feed equal the API's and the change log, no entry twice, none missing", async () => {
    const { noteId } = await newNote("Restart");
    const tab = orThrow(await people.addTab(noteId, { tab_type: "slides", label: "Running deck" }), "add a deck");
    const page = await openPage(noteId);
    await tabTo(page, `#tab-strip button[data-tab-id="${tab.tab.id}"]`);
    await page.keyboard.press("Enter");

    let written = 0;
    /** One appended slide through the person's API (the agent's path is acceptance 1's). */
    const write = async (): Promise<void> => {
      written += 1;
      const answer = await people.request("POST", `/notes/${noteId}/tabs/${tab.tab.id}/slides`, { slides: [{ title: `Slide ${written}` }] });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    };
    for (let i = 0; i < 5; i += 1) await write();

    const stopped = Date.now();
    await server.stop();
    await expect.poll(() => page.locator("#live-state").getAttribute("data-state"), WAIT).not.toBe("live");
    server = await restartServer(harness());
    // The writes go on while the page is still away (it waits 0.5 s, 1 s, 2 s … between tries).
    for (let i = 0; i < 8; i += 1) await write();
    const api = await read<WholeNote>(`/notes/${noteId}`);
    await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(api.version));
    await page.locator('#live-state[data-state="live"]').waitFor(WAIT);
    console.log(`acceptance 2: the page was live and at version ${api.version} ${Date.now() - stopped} ms after the server was stopped`);

    // One more write once it is back: it arrives over the new socket.
    await write();
    const now = await read<WholeNote>(`/notes/${noteId}`);
    await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(now.version));
    await expect.poll(() => page.locator(".slides li").count(), WAIT).toBe(written);

    expect(await tabStrip(page)).toEqual(now.tabs.map((t) => ({ id: t.id, label: t.label })));
    const deck = now.tabs.find((t) => t.id === tab.tab.id);
    expect(await page.locator(".slides li").evaluateAll((items) => items.map((li) => li.getAttribute("data-slide-id")))).toEqual(deck?.slides?.map((s) => s.id));
    const log = await read<{ changes: { version: number; operation: string; actor: { kind: string } }[] }>(`/notes/${noteId}/changes?since_version=0&limit=200`);
    await expect.poll(async () => (await feedOf(page)).length, WAIT).toBe(log.changes.length);
    // Newest first.
    expect((await feedOf(page)).map((line) => [line.version, line.actor, line.operation])).toEqual(log.changes.map((c) => [c.version, c.actor.kind, c.operation]).reverse());
    expect(log.changes.at(-1)?.version).toBe(now.version);
    await page.context().close();
  });
  it("the person's other actions, from the keyboard: a Sheet's rows and the files shown as text; a tab added, moved and deleted; the Markdown edited; connectors revoked and approved again", async () => {
    const { noteId } = await newNote("Actions");
    const sheet = orThrow(await people.addTab(noteId, { tab_type: "sheet", label: "Budget" }), "add a Sheet").tab;
    for (const [path, body] of [
      [`/tabs/${sheet.id}/columns`, { columns: ["Item", "Cost"] }],
      [`/tabs/${sheet.id}/rows`, { rows: [{ Item: "<b>Tea</b>", Cost: 3 }, { Item: "Milk", Cost: 1.5 }] }],
      ["/files", { name: "plan <i>v2</i>.pdf", media_type: "application/pdf", size_bytes: 1234 }],
    ] as const) {
      const answer = await people.request("POST", `/notes/${noteId}${path}`, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
    const page = await openPage(noteId);

    // Data is text: markup in a cell or a file name shows as typed, never as elements.
    await tabTo(page, `#tab-strip button[data-tab-id="${sheet.id}"]`);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#tab-content tbody tr").count(), WAIT).toBe(2);
    expect(await page.locator("#tab-content tbody tr").evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll(":scope > :not(.actions)"), (cell) => cell.textContent)))).toEqual([
      ["1", "<b>Tea</b>", "3"],
      ["2", "Milk", "1.5"],
    ]);
    await tabTo(page, '#tab-strip button[data-tab-id="files"]');
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#tab-content li strong").textContent(), WAIT).toBe("plan <i>v2</i>.pdf");
    expect(await page.locator("#tab-content li").textContent()).toContain("application/pdf, 1.2 KB");
    expect(await page.locator("#tab-content b, #tab-content i").count()).toBe(0);

    // A Sheet added, moved before the first Sheet, then deleted after its confirmation.
    await tabTo(page, "#add-tab select");
    await page.keyboard.press("ArrowDown");
    expect(await page.locator("#add-tab select").inputValue()).toBe("sheet");
    await tabTo(page, "#add-tab input[name=label]");
    await page.keyboard.type("Costs");
    await page.keyboard.press("Enter");
    const added = page.locator('#tab-strip button:has-text("Costs")');
    await added.waitFor(WAIT);
    const addedId = (await added.getAttribute("data-tab-id")) as string;
    await expect.poll(() => page.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(addedId);
    await tabTo(page, "#move-earlier");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await tabStrip(page)).map((tab) => tab.id).slice(-2), WAIT).toEqual([addedId, sheet.id]);
    expect(await tabStrip(page)).toEqual((await read<WholeNote>(`/notes/${noteId}`)).tabs.map((t) => ({ id: t.id, label: t.label })));
    await tabTo(page, "#delete-tab");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("confirm-delete");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await tabStrip(page)).some((tab) => tab.id === addedId), WAIT).toBe(false);
    expect((await read<WholeNote>(`/notes/${noteId}`)).tabs.some((t) => t.id === addedId)).toBe(false);

    // The Markdown, edited and saved.
    await tabTo(page, '#tab-strip button[data-tab-id="markdown"]');
    await page.keyboard.press("Enter");
    await tabTo(page, "#markdown-text");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("# Actions\n\nWritten on the page.");
    await tabTo(page, '#markdown-form button[type="submit"]');
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await read<{ markdown: string }>(`/notes/${noteId}`)).markdown, WAIT).toBe("# Actions\n\nWritten on the page.");

    // Connector access revoked, then approved again, with the same button.
    await tabTo(page, "#approval-toggle");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#approval-state").textContent(), WAIT).toBe("not approved");
    expect((await read<{ approved: boolean }>(`/notes/${noteId}`)).approved).toBe(false);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#approval-state").textContent(), WAIT).toBe("approved");

    const now = await read<WholeNote>(`/notes/${noteId}`);
    await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(now.version));
    // Newest first.
    await expect.poll(async () => (await feedOf(page)).slice(0, 6).map((line) => [line.actor, line.operation]), WAIT).toEqual(
      ["set_approval", "set_approval", "set_markdown", "delete_tab", "move_tab", "add_tab"].map((operation) => ["person", operation]),
    );
    expect(page.problems).toEqual([]);
    await page.context().close();
  });

  it("a change made on a version the page has not caught up with is refused: the page re-reads and tells the person", async () => {
    const { noteId } = await newNote("Conflict");
    const deck = orThrow(await people.addTab(noteId, { tab_type: "slides", label: "Draft" }), "add a deck").tab;
    // The socket opens but never speaks: the page learns of the next change only by reading.
    const page = await openPage(noteId, { beforeOpen: (context) => context.routeWebSocket(/\/live/, () => {}) });
    await tabTo(page, `#tab-strip button[data-tab-id="${deck.id}"]`);
    await page.keyboard.press("Enter");
    const seen = Number(await page.locator("#note-version").textContent());

    const behind = await people.request("PATCH", `/notes/${noteId}/tabs/${deck.id}`, { label: "Renamed elsewhere" });
    expect(behind.status).toBe(200);
    await tabTo(page, "#rename-tab input[name=label]");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("Mine");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toContain(`not done. The Note changed while you were looking at version ${seen}`);
    await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(seen + 1));
    expect(await page.locator(`#tab-strip button[data-tab-id="${deck.id}"] .label`).textContent()).toBe("Renamed elsewhere");
    const now = await read<WholeNote>(`/notes/${noteId}`);
    expect(now.version).toBe(seen + 1);
    expect(now.tabs.find((t) => t.id === deck.id)?.label).toBe("Renamed elsewhere");
    await page.context().close();
  });


  it("a member removed, or the Note deleted, while the page is open: the socket closes with 4404 and the page says so and stops", async () => {
    const { noteId } = await newNote("Shared, then gone");
    expect((await people.request("POST", `/notes/${noteId}/members`, { user: "bob" })).status).toBe(200);
    const bobs = await openPage(noteId, { user: "bob" });
    const alices = await openPage(noteId);
    expect((await people.request("DELETE", `/notes/${noteId}/members/bob`)).status).toBe(200);
    await expect.poll(() => bobs.locator("#live-state").getAttribute("data-state"), WAIT).toBe("closed");
    expect(await bobs.locator("#status").textContent()).toContain("This Note is no longer yours to see");
    // Alice's page stays live and shows bob gone.
    await expect.poll(() => alices.locator("#members li bdi").allTextContents(), WAIT).toEqual(["alice"]);
    expect(await alices.locator("#live-state").getAttribute("data-state")).toBe("live");

    expect((await people.request("DELETE", `/notes/${noteId}`)).status).toBe(200);
    await expect.poll(() => alices.locator("#live-state").getAttribute("data-state"), WAIT).toBe("closed");
    // The deletion's own change, or the socket's 4404, whichever the page meets first.
    expect(await alices.locator("#status").textContent()).toMatch(/^This Note (was deleted by alice\.|is no longer yours to see: the Note was deleted\.)$/);
    await bobs.context().close();
    await alices.context().close();
  });

  it("a Note the person cannot use: the page says so, no heading that still says loading, no controls that would do nothing", async () => {
    const page = await openPage(`no-such-${crypto.randomUUID()}`, { live: false });
    await expect.poll(() => page.locator("#status").textContent(), WAIT).toMatch(/^There is no Note "no-such-[^"]+" that you can use/);
    expect(await page.locator("#note-title").textContent()).toBe("No Note to show");
    expect(await page.locator("main").isVisible()).toBe(false);
    await page.context().close();
  });

  it("signing out from the page ends the session: the cookie is gone and the page must sign in again", async () => {
    const { noteId } = await newNote("Sign-out");
    const page = await openPage(noteId);
    await tabTo(page, "#sign-out button");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/notes\/sign-out/, WAIT);
    expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain("notes_session");
    // Back to the Note: its read answers 401 and, with no refresh token left, the consent page asks again.
    await page.goto(`${server.url}/notes/${noteId}`);
    await page.waitForURL(/\/authorize\?/, WAIT);
    await page.context().close();
  });
});

interface WholeNote {
  version: number;
  tabs: { id: string; label: string; slides?: { id: string }[] }[];
}
