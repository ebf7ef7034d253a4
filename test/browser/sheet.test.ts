/**
 * The person fills a Sheet on the page (issue 24), from the keyboard only:
 * columns added to a new, empty Sheet; rows added with a text and a number
 * cell; a cell edited in place from text to a number; a row moved and one
 * deleted. Each is checked through the person's API (cells typed: numbers as
 * JSON numbers), seen live by a second page, and by an agent's
 * `list_note_changes` as the person's. Then the conflict: the agent changes
 * the row the person is editing; the save is refused, the person's values
 * kept, the agent's change named, and the person can save over it or discard.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { orThrow } from "../../scripts/lib/person-api.js";
import { AGENT, call, newNote, openPage, read, pickTab, shot, tabTo, useBrowserHarness, WAIT, type Harness, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let h: Harness;
let client: Client;
let noteId = "";
let sheetId = "";
let person: OpenPage;
let other: OpenPage;

interface SheetRead {
  version: number;
  columns: string[];
  rows: { id: string; index: number; cells: Record<string, string | number> }[];
}

const readSheet = () => read<SheetRead>(h, `/notes/${noteId}/tabs/${sheetId}`);
const version = async () => (await read<{ version: number }>(h, `/notes/${noteId}`)).version;
/** The rows as a page shows them: each row's number and cells, its buttons left out. */
const shownRows = (page: OpenPage) =>
  page.locator("#tab-content tbody tr[data-row-id]").evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll(":scope > :not(.actions)"), (cell) => cell.textContent)));
const focusedLabel = (page: OpenPage) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "");
/** The server's refusal the test asked for is the page's only problem so far: told, then cleared, so any other still fails the test. */
const onlyRefused = (page: OpenPage, route: RegExp) => {
  expect(page.problems).toEqual([expect.stringMatching(route)]);
  page.problems.length = 0;
};
/** Waits until the page shows the Note's current version (it has re-read after the last write). */
const caughtUp = async (page: OpenPage) => {
  const now = await version();
  await expect.poll(() => page.locator("#note-version").textContent(), WAIT).toBe(String(now));
  return now;
};

const selectSheet = (page: OpenPage): Promise<void> => pickTab(page, sheetId);

beforeAll(async () => {
  h = harness();
  ({ noteId } = await newNote(h, "Shopping"));
  sheetId = orThrow(await h.people.addTab(noteId, { tab_type: "sheet", label: "Groceries" }), "add a Sheet").tab.id;
  client = await connectClient(h.server.mcpUrl, h.agentToken);
});

afterAll(async () => {
  await client?.close();
  await person?.context().close();
  await other?.context().close();
});

describe("a Sheet filled on the page, from the keyboard", () => {
  it("adds columns to an empty Sheet, adds rows with text and number cells, edits a cell from text to a number, moves and deletes rows; the API, a second page and the agent's change log see each", async () => {
    person = await openPage(h, noteId);
    other = await openPage(h, noteId);
    await selectSheet(person);
    await selectSheet(other);
    const start = await version();
    const patches: unknown[] = [];
    person.on("request", (request) => {
      if (request.method() === "PATCH" && request.url().includes("/rows/")) patches.push(request.postDataJSON());
    });

    // An empty Sheet says what to do; no lone "#" header.
    await expect.poll(() => person.locator("#tab-content .sheet-hint").textContent(), WAIT).toContain("no columns yet");
    expect(await person.locator("#tab-content table").isVisible()).toBe(false);

    // Columns: a name given twice and a name already there are refused in the server's words; the Note stays as it was.
    await tabTo(person, "#tab-content .sheet-add-columns input");
    await person.keyboard.type("Item, Item");
    await person.keyboard.press("Enter");
    await expect.poll(() => person.locator("#tab-content .sheet-add-columns .form-message").textContent(), WAIT).toContain('"Item" is given twice');
    expect(await version()).toBe(start);
    onlyRefused(person, /^400 .*\/columns$/);
    await person.keyboard.press("Control+A");
    await person.keyboard.type(" Item ,Cost");
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).columns, WAIT).toEqual(["Item", "Cost"]);
    await expect.poll(() => person.locator("#tab-content thead th").allTextContents(), WAIT).toEqual(["#", "Item", "Cost", "Row actions"]);
    expect(await person.locator("#tab-content .sheet-add-columns input").inputValue()).toBe("");
    await person.keyboard.type("Cost");
    await person.keyboard.press("Enter");
    await expect.poll(() => person.locator("#tab-content .sheet-add-columns .form-message").textContent(), WAIT).toContain('"Cost" is already a column of this Sheet');
    onlyRefused(person, /^400 .*\/columns$/);
    await person.keyboard.press("Control+A");
    await person.keyboard.press("Delete");

    // Rows: Tea at 3.5 (a number), then Milk with a Cost that is no number while "number" is ticked: refused on the page, naming the column.
    await tabTo(person, '#tab-content .sheet-add-row input[aria-label="Item"]');
    await person.keyboard.type("Tea");
    await tabTo(person, '#tab-content .sheet-add-row input[aria-label="Cost"]');
    await person.keyboard.type("3.5");
    await tabTo(person, '#tab-content .sheet-add-row input[aria-label="Cost is a number"]');
    await person.keyboard.press("Space");
    await tabTo(person, "#tab-content .sheet-add-row button[type=submit]");
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.map((row) => row.cells), WAIT).toEqual([{ Item: "Tea", Cost: 3.5 }]);
    const afterTea = await version();
    await tabTo(person, '#tab-content .sheet-add-row input[aria-label="Item"]');
    expect(await person.locator('#tab-content .sheet-add-row input[aria-label="Item"]').inputValue()).toBe("");
    await person.keyboard.type("Milk");
    await person.keyboard.press("Tab");
    await person.keyboard.press("Tab");
    await person.keyboard.type("a lot");
    // "number" stays as chosen for the next row.
    expect(await person.locator('#tab-content .sheet-add-row input[aria-label="Cost is a number"]').isChecked()).toBe(true);
    await person.keyboard.press("Enter");
    await expect.poll(() => person.locator("#tab-content .sheet-add-row .form-message").textContent(), WAIT).toContain("“Cost” is not a number: “a lot”");
    expect(await focusedLabel(person)).toBe("Cost");
    expect(await version()).toBe(afterTea);
    await person.keyboard.press("Control+A");
    await person.keyboard.type("1.25");
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.length, WAIT).toBe(2);
    // Bread's Cost as text: "number" unticked.
    await tabTo(person, '#tab-content .sheet-add-row input[aria-label="Item"]');
    await person.keyboard.type("Bread");
    await person.keyboard.press("Tab");
    await person.keyboard.press("Tab");
    await person.keyboard.type("2");
    await person.keyboard.press("Tab");
    await person.keyboard.press("Space");
    await tabTo(person, "#tab-content .sheet-add-row button[type=submit]");
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.map((row) => row.cells), WAIT).toEqual([
      { Item: "Tea", Cost: 3.5 },
      { Item: "Milk", Cost: 1.25 },
      { Item: "Bread", Cost: "2" },
    ]);
    await caughtUp(person);
    await expect.poll(() => shownRows(person), WAIT).toEqual([
      ["1", "Tea", "3.5"],
      ["2", "Milk", "1.25"],
      ["3", "Bread", "2"],
    ]);
    await shot(person, "page-sheet.png", "#tab-panel");
    // Number cells right-aligned; text cells not.
    const align = (row: number, column: number) =>
      person.locator(`#tab-content tbody tr[data-row-id]:nth-child(${row}) td:nth-of-type(${column})`).evaluate((td) => getComputedStyle(td).textAlign);
    await expect.poll(() => align(1, 2), WAIT).toBe("right");
    await expect.poll(() => align(3, 2), WAIT).toBe("left");

    // Escape cancels an edit: nothing sent, the keyboard back on the row's Edit button.
    await tabTo(person, '#tab-content button[aria-label="Edit row 1"]');
    await person.keyboard.press("Enter");
    expect(await focusedLabel(person)).toBe("Row 1, Item");
    await person.keyboard.type(" (green)");
    await person.keyboard.press("Escape");
    expect(await focusedLabel(person)).toBe("Edit row 1");
    expect(patches).toEqual([]);

    // Emptying every cell is refused in the server's words; the form stays open.
    await tabTo(person, '#tab-content button[aria-label="Edit row 2"]');
    await person.keyboard.press("Enter");
    await person.keyboard.press("Control+A");
    await person.keyboard.press("Delete");
    await person.keyboard.press("Tab");
    await person.keyboard.press("Tab");
    expect(await focusedLabel(person)).toBe("Row 2, Cost");
    await person.keyboard.press("Control+A");
    await person.keyboard.press("Delete");
    const beforeEmpty = await version();
    await person.keyboard.press("Enter");
    await expect.poll(() => person.locator("#tab-content tr.editing-note .form-message").textContent(), WAIT).toContain("would empty every cell");
    expect(patches.at(-1)).toMatchObject({ cells: { Item: null, Cost: null } });
    expect(await version()).toBe(beforeEmpty);
    onlyRefused(person, /^400 .*\/rows\/row-/);
    await person.keyboard.press("Escape");

    // Bread's Cost from text to a number: only that cell is sent.
    await tabTo(person, '#tab-content button[aria-label="Edit row 3"]');
    await person.keyboard.press("Enter");
    expect(await person.locator('#tab-content input[aria-label="Row 3, Cost is a number"]').isChecked()).toBe(false);
    expect(await person.locator('#tab-content input[aria-label="Row 2, Cost is a number"]').count()).toBe(0);
    await tabTo(person, '#tab-content input[aria-label="Row 3, Cost is a number"]');
    await person.keyboard.press("Space");
    await person.keyboard.press("Tab");
    expect(await focusedLabel(person)).toBe("Save row 3");
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows[2]?.cells, WAIT).toEqual({ Item: "Bread", Cost: 2 });
    expect(patches.at(-1)).toEqual({ cells: { Cost: 2 }, expected_version: expect.any(Number) });
    await caughtUp(person);
    await expect.poll(() => focusedLabel(person), WAIT).toBe("Edit row 3");
    await expect.poll(() => align(3, 2), WAIT).toBe("right");

    // Bread moved up one place; the keyboard stays on its button.
    await tabTo(person, '#tab-content button[aria-label="Move row 3 up"]');
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.map((row) => row.cells.Item), WAIT).toEqual(["Tea", "Bread", "Milk"]);
    await caughtUp(person);
    await expect.poll(() => focusedLabel(person), WAIT).toBe("Move row 2 up");
    expect(patches.at(-1)).toMatchObject({ after_id: (await readSheet()).rows[0]?.id });
    // Up again, to the front (after_id null); then down one place, after Tea.
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.map((row) => row.cells.Item), WAIT).toEqual(["Bread", "Tea", "Milk"]);
    expect(patches.at(-1)).toEqual({ after_id: null, expected_version: expect.any(Number) });
    await expect.poll(() => focusedLabel(person), WAIT).toBe("Edit row 1");
    await tabTo(person, '#tab-content button[aria-label="Move row 1 down"]');
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.map((row) => row.cells.Item), WAIT).toEqual(["Tea", "Bread", "Milk"]);
    await expect.poll(() => focusedLabel(person), WAIT).toBe("Move row 2 down");

    // Milk deleted, after its confirmation.
    await tabTo(person, '#tab-content button[aria-label="Delete row 3"]');
    await person.keyboard.press("Enter");
    expect(await focusedLabel(person)).toBe("Yes, delete row 3");
    expect((await readSheet()).rows).toHaveLength(3);
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows.map((row) => row.cells), WAIT).toEqual([
      { Item: "Tea", Cost: 3.5 },
      { Item: "Bread", Cost: 2 },
    ]);

    // The second page saw it all live; the agent's log tells each change as the person's.
    const end = await caughtUp(person);
    await expect.poll(() => other.locator("#note-version").textContent(), WAIT).toBe(String(end));
    await expect.poll(() => shownRows(other), WAIT).toEqual([
      ["1", "Tea", "3.5"],
      ["2", "Bread", "2"],
    ]);
    expect(await shownRows(person)).toEqual(await shownRows(other));
    const log = await call(client, "list_note_changes", { note_id: noteId, since_version: start });
    expect(log.changes.map((c: { operation: string; actor: { kind: string } }) => [c.operation, c.actor.kind])).toEqual(
      ["columns_add", "rows_append", "rows_append", "rows_append", "row_update", "row_move", "row_move", "row_move", "row_delete"].map((operation) => [operation, "person"]),
    );

    // 360 px wide, with a row's form open: the page does not scroll sideways (the table scrolls in its own region).
    await person.setViewportSize({ width: 360, height: 800 });
    await tabTo(person, '#tab-content button[aria-label="Edit row 1"]');
    await person.keyboard.press("Enter");
    expect(await person.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await person.keyboard.press("Escape");
    await person.setViewportSize({ width: 1280, height: 900 });
    expect(person.problems).toEqual([]);
    expect(other.problems).toEqual([]);
  });

  it("the agent changes the row the person is editing: a re-read leaves the form alone, the save is refused naming the agent's change, the person's values kept; they save theirs over it, or discard", async () => {
    const agentUpdate = async (rowId: string, cells: Record<string, string | number | null>) =>
      call(client, "edit_note_tab", { note_id: noteId, expected_version: await version(), idempotency_key: crypto.randomUUID(), tab_id: sheetId, operation: "row_update", row_id: rowId, cells });
    const [tea, bread] = (await readSheet()).rows;
    if (tea === undefined || bread === undefined) throw new Error("the first test's rows are missing");

    await tabTo(person, '#tab-content button[aria-label="Edit row 2"]');
    await person.keyboard.press("Enter");
    await person.keyboard.press("Control+A");
    await person.keyboard.type("Rye bread");
    const agentWrote = (await agentUpdate(bread.id, { Cost: 9 })).version as number;
    // The page re-reads the Sheet; the open form keeps what the person typed and the cell they did not touch.
    await expect.poll(() => person.locator("#note-version").textContent(), WAIT).toBe(String(agentWrote));
    await expect.poll(() => shownRows(other), WAIT).toContainEqual(["2", "Bread", "9"]);
    expect(await person.locator('#tab-content input[aria-label="Row 2, Item"]').inputValue()).toBe("Rye bread");
    expect(await person.locator('#tab-content input[aria-label="Row 2, Cost"]').inputValue()).toBe("2");
    expect(await focusedLabel(person)).toBe("Row 2, Item");

    await person.keyboard.press("Enter");
    const message = person.locator("#tab-content tr.editing-note .form-message");
    await expect.poll(() => message.textContent(), WAIT).toContain("Not saved: this row was changed while you were editing it");
    expect(await message.textContent()).toContain(`v${agentWrote} ${AGENT} changed a row in ${sheetId}: 1 row`);
    expect(await person.locator('#tab-content input[aria-label="Row 2, Item"]').inputValue()).toBe("Rye bread");
    expect(await focusedLabel(person)).toBe("Save mine over it, row 2");
    expect(await version()).toBe(agentWrote);
    expect((await readSheet()).rows[1]?.cells).toEqual({ Item: "Bread", Cost: 9 });

    // Saved over it: the person's cell, the agent's other cell kept.
    await person.keyboard.press("Enter");
    await expect.poll(async () => (await readSheet()).rows[1]?.cells, WAIT).toEqual({ Item: "Rye bread", Cost: 9 });
    await caughtUp(person);
    await expect.poll(() => shownRows(person), WAIT).toEqual([
      ["1", "Tea", "3.5"],
      ["2", "Rye bread", "9"],
    ]);

    // Again on Tea, and this time the person discards theirs: the row shows the agent's, the Note holds only the agent's.
    await tabTo(person, '#tab-content button[aria-label="Edit row 1"]');
    await person.keyboard.press("Enter");
    await person.keyboard.press("Control+A");
    await person.keyboard.type("Green tea");
    const second = (await agentUpdate(tea.id, { Item: "Black tea" })).version as number;
    await expect.poll(() => person.locator("#note-version").textContent(), WAIT).toBe(String(second));
    expect(await person.locator('#tab-content input[aria-label="Row 1, Item"]').inputValue()).toBe("Green tea");
    await tabTo(person, '#tab-content button[aria-label="Save row 1"]');
    await person.keyboard.press("Enter");
    await expect.poll(() => message.textContent(), WAIT).toContain(`v${second} ${AGENT} changed a row`);
    await tabTo(person, '#tab-content button[aria-label="Discard mine, row 1"]');
    await person.keyboard.press("Enter");
    await expect.poll(() => shownRows(person), WAIT).toEqual([
      ["1", "Black tea", "3.5"],
      ["2", "Rye bread", "9"],
    ]);
    expect(await focusedLabel(person)).toBe("Edit row 1");
    expect(await version()).toBe(second);
    const log = await call(client, "list_note_changes", { note_id: noteId, since_version: agentWrote - 1 });
    expect(log.changes.map((c: { operation: string; actor: { kind: string } }) => [c.operation, c.actor.kind])).toEqual([
      ["row_update", "agent"],
      ["row_update", "person"],
      ["row_update", "agent"],
    ]);
    expect(person.problems).toEqual([]);
  });

  it("rows a page at a time: after Load more, an edit keeps the row where it is and the rows shown; a change the page has not heard of is refused by the server, named, the person's values kept", async () => {
    const { noteId: longId } = await newNote(h, "Long list");
    const tab = orThrow(await h.people.addTab(longId, { tab_type: "sheet", label: "Stock" }), "add a Sheet").tab;
    for (const [route, body] of [
      [`/tabs/${tab.id}/columns`, { columns: ["Item", "Count"] }],
      [`/tabs/${tab.id}/rows`, { rows: Array.from({ length: 130 }, (_, i) => ({ Item: `Item ${i + 1}`, Count: i + 1 })) }],
    ] as const) expect((await h.people.request("POST", `/notes/${longId}${route}`, body)).status).toBe(201);
    const rowsOf = async () => (await read<SheetRead>(h, `/notes/${longId}/tabs/${tab.id}?limit=500`)).rows;
    // The socket opens but never speaks: the page learns of the agent's change only when the server refuses the save.
    const page = await openPage(h, longId, { beforeOpen: (context) => context.routeWebSocket(/\/live/, () => {}) });
    try {
      await tabTo(page, `#tab-strip button[data-tab-id="${tab.id}"]`);
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#tab-content tbody tr[data-row-id]").count(), WAIT).toBe(100);
      // Load more follows the 100 rows' buttons in the Tab order: the keyboard is put on it, then presses it.
      await page.locator("#load-more").focus();
      await page.keyboard.press("Enter");
      await expect.poll(() => page.locator("#tab-content tbody tr[data-row-id]").count(), WAIT).toBe(130);
      expect(await page.locator("#load-more").isHidden()).toBe(true);

      // Row 120, far down the table (the keyboard is put on its button; Tab would take some 500 presses).
      await page.locator('#tab-content button[aria-label="Edit row 120"]').focus();
      await page.keyboard.press("Enter");
      await page.keyboard.press("Control+A");
      await page.keyboard.type("Item 120, recounted");
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await rowsOf())[119]?.cells, WAIT).toEqual({ Item: "Item 120, recounted", Count: 120 });
      await expect.poll(() => focusedLabel(page), WAIT).toBe("Edit row 120");
      expect(await page.locator("#tab-content tbody tr[data-row-id]").count()).toBe(130);
      expect((await shownRows(page))[119]).toEqual(["120", "Item 120, recounted", "120"]);

      // The agent changes row 125 while the person edits it; the page has not heard, so the server refuses the save.
      const target = (await rowsOf())[124];
      if (target === undefined) throw new Error("no row 125");
      await page.locator('#tab-content button[aria-label="Edit row 125"]').focus();
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Tab");
      expect(await focusedLabel(page)).toBe("Row 125, Count");
      await page.keyboard.press("Control+A");
      await page.keyboard.type("7");
      const agentClient = await connectClient(h.server.mcpUrl, h.agentToken);
      let agentWrote = 0;
      try {
        const now = (await read<{ version: number }>(h, `/notes/${longId}`)).version;
        agentWrote = (await call(agentClient, "edit_note_tab", { note_id: longId, expected_version: now, idempotency_key: crypto.randomUUID(), tab_id: tab.id, operation: "row_update", row_id: target.id, cells: { Count: 0 } })).version;
      } finally {
        await agentClient.close();
      }
      await page.keyboard.press("Enter");
      const message = page.locator("#tab-content tr.editing-note .form-message");
      await expect.poll(() => message.textContent(), WAIT).toContain(`v${agentWrote} ${AGENT} changed a row in ${tab.id}: 1 row`);
      expect(await page.locator('#tab-content input[aria-label="Row 125, Count"]').inputValue()).toBe("7");
      expect((await rowsOf())[124]?.cells).toEqual({ Item: "Item 125", Count: 0 });
      onlyRefused(page, /^409 .*\/rows\/row-/);
      // Saved over it, the row keeps its place among the 130 shown.
      expect(await focusedLabel(page)).toBe("Save mine over it, row 125");
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await rowsOf())[124]?.cells, WAIT).toEqual({ Item: "Item 125", Count: 7 });
      await expect.poll(async () => (await shownRows(page))[124], WAIT).toEqual(["125", "Item 125", "7"]);
      expect(await page.locator("#tab-content tbody tr[data-row-id]").count()).toBe(130);
      expect(page.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
