/**
 * Taking a change back (issue 25, docs/spec.md §10), through the real Durable
 * Object: every kind of content change reverted exactly (the Note's content
 * as before it), a revert of the revert redoing it, and the refusals, each
 * leaving the Note byte-identical.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dumpDatabase } from "../support/dump.js";
import { api, failure, newNote, ok, tool } from "../support/workers.js";

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
const dump = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => dumpDatabase(state.storage.sql));

/** Everything the Note shows, but its version: the whole Note, each Sheet's rows, the sources and files. */
async function content(noteId: string): Promise<unknown> {
  const whole = await api("GET", `/notes/${noteId}`);
  expect(whole.status).toBe(200);
  const { version: _version, ...note } = whole.body;
  const rows: Record<string, unknown> = {};
  for (const tab of note.tabs as { id: string; type: string }[]) {
    if (tab.type === "sheet") rows[tab.id] = (await api("GET", `/notes/${noteId}/tabs/${tab.id}?limit=500`)).body.rows;
  }
  const sources = (await api("GET", `/notes/${noteId}/attachments?kind=sources`)).body.items;
  const files = (await api("GET", `/notes/${noteId}/attachments?kind=files`)).body.items;
  return { note, rows, sources, files };
}

async function versionOf(noteId: string): Promise<number> {
  return (await api("GET", `/notes/${noteId}`)).body.version;
}

/** The person takes change `version` back at the Note's current version; the new version. */
async function undo(noteId: string, version: number): Promise<number> {
  const answer = await api("POST", `/notes/${noteId}/changes/${version}/revert`, { expected_version: await versionOf(noteId) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.version;
}

/**
 * The change `make` commits (returning its version) is taken back by the
 * person: the content is exactly as before it; the revert taken back redoes
 * it: the content is exactly as after it.
 */
async function roundTrip(noteId: string, make: () => Promise<number>): Promise<{ changed: number; reverted: number }> {
  const before = await content(noteId);
  const changed = await make();
  const after = await content(noteId);
  expect(after).not.toEqual(before);
  const reverted = await undo(noteId, changed);
  expect(await content(noteId)).toEqual(before);
  await undo(noteId, reverted);
  expect(await content(noteId)).toEqual(after);
  return { changed, reverted };
}

async function deck(noteId: string, titles: string[]): Promise<{ tabId: string; slideIds: string[]; version: number }> {
  const created = await ok("create_note_tab", {
    note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: `deck-${titles.join()}`, tab_type: "slides", label: "Deck", slides: titles.map((title) => ({ title, body: `${title} body` })),
  });
  return { tabId: created.tab_id, slideIds: created.slide_ids, version: created.version };
}

async function sheet(noteId: string): Promise<{ tabId: string; rowIds: string[] }> {
  const created = await ok("create_note_tab", {
    note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: "sheet", tab_type: "sheet", columns: ["name", "amount"],
    rows: [{ name: "a", amount: 1 }, { name: "b", amount: 2 }, { name: "c", amount: 3 }],
  });
  return { tabId: created.tab_id, rowIds: created.row_ids };
}

const person = async (noteId: string, method: string, path: string, body: Record<string, unknown> = {}) => {
  const answer = await api(method, `/notes/${noteId}${path}`, { ...body, expected_version: await versionOf(noteId) });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body.version as number;
};

const agentEdit = async (noteId: string, key: string, args: Record<string, unknown>) =>
  (await ok("edit_note_tab", { note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: key, ...args })).version as number;

describe("an agent's mistake, taken back (issue 25, acceptance 1)", () => {
  it("the agent reverts its update and the person's edit stays; the person reverts the delete; a revert of the revert redoes; a resend is replayed", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One", "Two", "Three", "Four"]);
    const [one, two, three] = slideIds as [string, string, string];
    const updated = await agentEdit(noteId, "bad-draft", { tab_id: tabId, operation: "slide_update", slide_id: one, body: "A wrong draft" });
    await person(noteId, "PATCH", `/tabs/${tabId}/slides/${two}`, { body: "The person's words" });
    const deleted = await agentEdit(noteId, "drop", { tab_id: tabId, operation: "slide_delete", slide_id: three });

    const revert = { note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: "undo-draft", version: updated };
    const reverted = await ok("revert_note_change", revert);
    expect(reverted).toMatchObject({ reverted_version: updated, version: deleted + 1, tab_id: tabId, slide_ids: [one], replayed: false });
    let slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides;
    expect(slides.map((s: { id: string; body: string }) => [s.id, s.body])).toEqual([[one, "One body"], [two, "The person's words"], [slideIds[3], "Four body"]]);

    // The person takes the deletion back: the slide is back with its ID, in its place.
    await undo(noteId, deleted);
    slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides;
    expect(slides.map((s: { id: string }) => s.id)).toEqual(slideIds);
    expect(slides[2]).toMatchObject({ title: "Three", body: "Three body" });

    // The revert taken back: the update is back.
    await ok("revert_note_change", { note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: "redo-draft", version: reverted.version });
    slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides;
    expect(slides[0].body).toBe("A wrong draft");

    // The first revert resent with its key: its first result, nothing written.
    const before = await dump(noteId);
    const again = await ok("revert_note_change", revert);
    expect(again).toMatchObject({ ...reverted, replayed: true, arguments_differ: false, current_version: await versionOf(noteId) });
    expect(await dump(noteId)).toBe(before);

    // The log says who took what back.
    const log = (await api("GET", `/notes/${noteId}/changes?since_version=${deleted}`)).body.changes;
    expect(log.map((c: { operation: string; reverts?: number; actor: { kind: string } }) => [c.operation, c.reverts, c.actor.kind])).toEqual([
      ["revert_change", updated, "agent"],
      ["revert_change", deleted, "person"],
      ["revert_change", reverted.version, "agent"],
    ]);
  });
});

describe("the refusals, each writing nothing", () => {
  it("revert_conflict lists the person's later change to the same slide; the other refusals name the field and what to do", async () => {
    const { noteId, version: created } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One", "Two"]);
    const updated = await agentEdit(noteId, "draft", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[0], body: "Agent's" });
    const edited = await person(noteId, "PATCH", `/tabs/${tabId}/slides/${slideIds[0]}`, { body: "Person's" });
    const current = await versionOf(noteId);
    const before = await dump(noteId);
    const args = (version: number, key = "undo") => ({ note_id: noteId, expected_version: current, idempotency_key: key, version });

    const conflict = await failure("revert_note_change", args(updated));
    expect(conflict).toMatchObject({ code: "revert_conflict", version: updated, changes_complete: true });
    expect(conflict.changes).toEqual([expect.objectContaining({ version: edited, operation: "slide_update", actor: { kind: "person", user: "alice" }, slide_ids: [slideIds[0]] })]);
    expect(conflict.message).toMatch(/later changes touched/);
    expect(await dump(noteId)).toBe(before);

    // The person's own route answers the same, as 409.
    const viaApi = await api("POST", `/notes/${noteId}/changes/${updated}/revert`, { expected_version: current });
    expect(viaApi.status).toBe(409);
    expect(viaApi.body.error).toMatchObject({ code: "revert_conflict", changes: [{ version: edited }] });

    expect(await failure("revert_note_change", args(current + 5))).toMatchObject({ code: "change_not_found", version: current + 5, current_version: current });
    // newNote creates the Note (version 1) and approves it (its version `created`): neither is content.
    expect(await failure("revert_note_change", args(1))).toMatchObject({ code: "not_revertible", operation: "create_note" });
    expect(await failure("revert_note_change", args(created))).toMatchObject({ code: "not_revertible", operation: "set_approval" });
    expect(await failure("revert_note_change", { ...args(edited), expected_version: current - 1 })).toMatchObject({ code: "version_conflict", current_version: current });
    expect((await tool("revert_note_change", { ...args(0) })).data).toMatchObject({ code: "invalid_arguments" });
    expect(await dump(noteId)).toBe(before);

    // The later change taken back first, the earlier one goes too.
    await undo(noteId, edited);
    await undo(noteId, updated);
    expect((await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides[0].body).toBe("One body");
    // A change taken back twice is a conflict with its own revert.
    expect((await api("POST", `/notes/${noteId}/changes/${updated}/revert`, { expected_version: await versionOf(noteId) })).body.error).toMatchObject({ code: "revert_conflict" });
    const missing = await api("POST", `/notes/${noteId}/changes/${updated}/revert`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.issues).toEqual([expect.objectContaining({ path: "expected_version" })]);
  });

  it("revert_conflict lists only the later changes still in effect: one taken back since, with its revert, is left out", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One"]);
    const slide = `/tabs/${tabId}/slides/${slideIds[0]}`;
    const updated = await agentEdit(noteId, "draft", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[0], body: "Agent's" });
    const first = await person(noteId, "PATCH", slide, { body: "Person's first" });
    const takenBack = await undo(noteId, first);
    const second = await person(noteId, "PATCH", slide, { body: "Person's second" });
    const refused = await api("POST", `/notes/${noteId}/changes/${updated}/revert`, { expected_version: await versionOf(noteId) });
    expect(refused.body.error).toMatchObject({ code: "revert_conflict", changes_complete: true });
    // Not `first` and `takenBack`: they cancel out; the person's second edit is what stands in the way.
    expect(refused.body.error.changes.map((c: { version: number }) => c.version)).toEqual([second]);
    expect(takenBack).toBe(first + 1);
    // Its own revert names why a change taken back cannot be taken back again.
    const again = await api("POST", `/notes/${noteId}/changes/${first}/revert`, { expected_version: await versionOf(noteId) });
    expect(again.body.error.changes.map((c: { version: number }) => c.version)).toEqual([takenBack, second]);
  });

  it("list_note_changes says which entries can be taken back now", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One", "Two"]);
    const first = await agentEdit(noteId, "a", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[0], body: "x" });
    const second = await agentEdit(noteId, "b", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[1], body: "y" });
    const third = await agentEdit(noteId, "c", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[0], body: "z" });
    const page = await ok("list_note_changes", { note_id: noteId, since_version: 0 });
    const flags = Object.fromEntries(page.changes.map((c: { version: number; revertible: boolean }) => [c.version, c.revertible]));
    expect([flags[1], flags[2], flags[first], flags[second], flags[third]]).toEqual([false, false, false, true, true]);
  });

  it("a redo undone by taking the change back again is not revertible, and the flag agrees with the revert", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One", "Two"]);
    const update = await agentEdit(noteId, "a", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[0], body: "x" });
    const reverted = await undo(noteId, update);
    const redo = await undo(noteId, reverted);
    // The update taken back once more, by a second revert of it: the redo's effect is gone.
    const again = await undo(noteId, update);
    const page = await ok("list_note_changes", { note_id: noteId, since_version: update - 1 });
    const flags = Object.fromEntries(page.changes.map((c: { version: number; revertible: boolean }) => [c.version, c.revertible]));
    expect([flags[update], flags[reverted], flags[redo], flags[again]]).toEqual([false, false, false, true]);
    const before = await dump(noteId);
    const refused = await api("POST", `/notes/${noteId}/changes/${redo}/revert`, { expected_version: again });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "revert_conflict", version: redo, changes: [expect.objectContaining({ version: again, reverts: update })] });
    expect(await dump(noteId)).toEqual(before);
  });

  it("a revert left in a tab whose creation was then taken back is not revertible, and the flag agrees with the revert", async () => {
    const { noteId } = await newNote();
    const { tabId, rowIds } = await sheet(noteId);
    const created = await versionOf(noteId);
    const deleted = await agentEdit(noteId, "drop a", { tab_id: tabId, operation: "row_delete", row_id: rowIds[0] });
    const back = await undo(noteId, deleted);
    // The row's delete and its revert cancel out: the Sheet's creation can be taken back, and the Sheet goes.
    const gone = await undo(noteId, created);
    const page = await ok("list_note_changes", { note_id: noteId, since_version: created - 1 });
    const flags = Object.fromEntries(page.changes.map((c: { version: number; revertible: boolean }) => [c.version, c.revertible]));
    expect([flags[created], flags[deleted], flags[back], flags[gone]]).toEqual([false, false, false, true]);
    const before = await dump(noteId);
    const refused = await api("POST", `/notes/${noteId}/changes/${back}/revert`, { expected_version: gone });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "revert_conflict", version: back, changes: [expect.objectContaining({ version: gone, reverts: created })] });
    expect(await dump(noteId)).toEqual(before);
    // The Sheet brought back, the row's revert can be taken back again.
    await undo(noteId, gone);
    const now = await ok("list_note_changes", { note_id: noteId, since_version: back - 1 });
    expect(now.changes[0]).toMatchObject({ version: back, revertible: true });
  });
});

describe("a redo, and a deletion's trash past the log (issue 25, acceptance 3)", () => {
  /** The person rewrites the Markdown `count` times, in one visit of the object: the log moves on by as many versions. */
  const churn = (noteId: string, count: number) =>
    runInDurableObject(stubOf(noteId), async (instance) => {
      for (let i = 0; i < count; i++) {
        const answer = await instance.execute(noteId, { user: "alice", channel: "app" }, "set_markdown", { text: `# Draft ${i}` });
        if (!answer.ok) throw new Error(JSON.stringify(answer));
      }
    });
  const flagsOf = async (noteId: string, since: number) =>
    Object.fromEntries((await ok("list_note_changes", { note_id: noteId, since_version: since, limit: 200 })).changes.map((c: { version: number; revertible: boolean }) => [c.version, c.revertible]));

  it("a deletion redone (its revert taken back) can be taken back again: the revert and its revert cancel out", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One", "Two", "Three"]);
    const deleted = await agentEdit(noteId, "drop", { tab_id: tabId, operation: "slide_delete", slide_id: slideIds[1] });
    const back = await undo(noteId, deleted);
    const redo = await undo(noteId, back);
    expect([...Object.values(await flagsOf(noteId, deleted - 1))]).toEqual([true, false, true]);
    // Taking the deletion back again brings the slide back, in its place; the redo then stands in the way of nothing but itself.
    await undo(noteId, deleted);
    const slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides;
    expect(slides.map((s: { id: string }) => s.id)).toEqual(slideIds);
    expect((await flagsOf(noteId, redo - 1))[redo]).toBe(false);
  });

  it("a redo of a deletion whose first change has left the log: not revertible, and the flag agrees; made after, it keeps its own trash", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One", "Two", "Three"]);
    const deleted = await agentEdit(noteId, "drop", { tab_id: tabId, operation: "slide_delete", slide_id: slideIds[1] });
    const back = await undo(noteId, deleted);
    const redo = await undo(noteId, back);
    // The deletion leaves the log, and with it the trash the redo put the slide back into: the slide is gone for good.
    await churn(noteId, 999);
    expect((await flagsOf(noteId, redo - 1))[redo]).toBe(false);
    const before = await dump(noteId);
    const refused = await api("POST", `/notes/${noteId}/changes/${redo}/revert`, { expected_version: await versionOf(noteId) });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: "not_revertible", version: redo, operation: "revert_change" });
    expect(refused.body.error.reason).toMatch(new RegExp(`change ${deleted}\\b`));
    expect(await dump(noteId)).toEqual(before);

    // Redone by the very commit that drops the deletion from the log: the redo keeps the slide in its own trash, and can be taken back.
    const second = await agentEdit(noteId, "drop again", { tab_id: tabId, operation: "slide_delete", slide_id: slideIds[2] });
    const secondBack = await undo(noteId, second);
    await churn(noteId, 998);
    const secondRedo = await undo(noteId, secondBack);
    expect((await flagsOf(noteId, secondRedo - 1))[secondRedo]).toBe(true);
    await undo(noteId, secondRedo);
    const slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides;
    expect(slides.map((s: { id: string }) => s.id)).toEqual([slideIds[0], slideIds[2]]);
    // No slide is kept in the trash of a change the log no longer holds.
    const trash = await runInDurableObject(stubOf(noteId), (_instance, state) => state.storage.sql.exec("SELECT tab_id FROM slides WHERE tab_id LIKE '~%'").toArray());
    const oldest = (await ok("list_note_changes", { note_id: noteId, since_version: 0, limit: 1 })).oldest_version as number;
    expect(trash.filter((row) => Number(String(row.tab_id).slice(1)) < oldest)).toEqual([]);
  });
});

describe("every kind of content change, taken back and redone", () => {
  it("tabs: created by an agent or the person, renamed, moved, deleted with their slides", async () => {
    const { noteId } = await newNote();
    let deckId = "";
    await roundTrip(noteId, async () => {
      const made = await deck(noteId, ["A", "B"]);
      deckId = made.tabId;
      return made.version;
    });
    await roundTrip(noteId, () => person(noteId, "POST", "/tabs", { tab_type: "sheet", label: "Costs", position: 0 }));
    await roundTrip(noteId, () => person(noteId, "PATCH", `/tabs/${deckId}`, { label: "Renamed" }));
    await roundTrip(noteId, () => person(noteId, "PATCH", `/tabs/${deckId}`, { position: 1 }));
    const { changed } = await roundTrip(noteId, () => person(noteId, "DELETE", `/tabs/${deckId}`));
    expect(changed).toBeGreaterThan(0);
  });

  it("slides: added, an outline, updated, deleted, moved, a deck replaced", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["A", "B", "C"]);
    await roundTrip(noteId, () => agentEdit(noteId, "add", { tab_id: tabId, operation: "slide_add", title: "D" }));
    await roundTrip(noteId, () => agentEdit(noteId, "outline", { tab_id: tabId, operation: "slides_add_outline", slides: [{ title: "E" }, { title: "F" }] }));
    await roundTrip(noteId, () => agentEdit(noteId, "update", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[1], title: "B2", notes: "n" }));
    await roundTrip(noteId, () => agentEdit(noteId, "delete", { tab_id: tabId, operation: "slide_delete", slide_id: slideIds[1] }));
    await roundTrip(noteId, () => person(noteId, "PATCH", `/tabs/${tabId}/slides/${slideIds[2]}`, { after_id: null }));
    await roundTrip(noteId, () => person(noteId, "PUT", `/tabs/${tabId}/slides`, { slides: [{ title: "Only" }] }));
  });

  it("a deleted slide comes back right after the one it followed, when a slide added since took its key", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["A", "B", "C"]);
    const deleted = await agentEdit(noteId, "delete", { tab_id: tabId, operation: "slide_delete", slide_id: slideIds[2] });
    const added = await ok("edit_note_tab", { note_id: noteId, expected_version: deleted, idempotency_key: "add", tab_id: tabId, operation: "slide_add", title: "D" });
    await undo(noteId, deleted);
    const slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides;
    expect(slides.map((s: { id: string }) => s.id)).toEqual([...slideIds, ...added.slide_ids]);
  });

  it("a deleted slide comes back right after the one it followed, after moves gave the deck fresh keys", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["A", "B", "C", "D"]);
    const [a, b, c, d] = slideIds as [string, string, string, string];
    const deleted = await agentEdit(noteId, "drop-b", { tab_id: tabId, operation: "slide_delete", slide_id: b });
    // Moving C and D in turn right after A halves the gap each time, until no key is free there: the deck is re-keyed.
    for (let i = 0; i < 14; i++) await person(noteId, "PATCH", `/tabs/${tabId}/slides/${i % 2 === 0 ? d : c}`, { after_id: a });
    const order = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides.map((s: { id: string }) => s.id);
    await undo(noteId, deleted);
    const slides = (await api("GET", `/notes/${noteId}/tabs/${tabId}`)).body.slides.map((s: { id: string }) => s.id);
    expect(slides).toEqual([a, b, ...order.slice(1)]);
  });

  it("rows and columns: appended, updated, deleted, moved, columns added", async () => {
    const { noteId } = await newNote();
    const { tabId, rowIds } = await sheet(noteId);
    await roundTrip(noteId, () => agentEdit(noteId, "append", { tab_id: tabId, operation: "rows_append", rows: [{ name: "d" }, { amount: 5 }] }));
    await roundTrip(noteId, () => agentEdit(noteId, "update", { tab_id: tabId, operation: "row_update", row_id: rowIds[0], cells: { name: null, amount: 10 } }));
    await roundTrip(noteId, () => agentEdit(noteId, "delete", { tab_id: tabId, operation: "row_delete", row_id: rowIds[1] }));
    await roundTrip(noteId, () => person(noteId, "PATCH", `/tabs/${tabId}/rows/${rowIds[0]}`, { after_id: rowIds[2] }));
    await roundTrip(noteId, () => agentEdit(noteId, "columns", { tab_id: tabId, operation: "columns_add", columns: ["note", "due"] }));
  });

  it("sources, files' metadata, the Markdown and the Note's title", async () => {
    const { noteId } = await newNote();
    const cite = async (key: string) =>
      (await ok("add_note_source", { note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: key, title: "Report", url: "https://example.org/report", description: "why" })).version as number;
    const { changed } = await roundTrip(noteId, () => cite("cite"));
    // Taken back and redone, the source has its own ID again; the page cited again is already attached.
    const again = await ok("add_note_source", { note_id: noteId, expected_version: await versionOf(noteId), idempotency_key: "cite-again", title: "Report", url: "example.org/report" });
    expect(again).toMatchObject({ source_id: "source-1", already_attached: true });
    expect(changed).toBeGreaterThan(0);
    await roundTrip(noteId, () => person(noteId, "POST", "/files", { name: "plan.pdf", media_type: "application/pdf", size_bytes: 1234 }));
    await person(noteId, "PUT", "/markdown", { text: "# Plan\n\nFirst draft, with 😀 in it.\n" });
    await roundTrip(noteId, () => person(noteId, "PUT", "/markdown", { text: "# Plan\n\nSecond draft, with 😀 in it.\nAnd more.\n" }));
    await roundTrip(noteId, () => person(noteId, "PATCH", "", { title: "A new title" }));
  });
});

describe("what a change did, readable", () => {
  it("GET …/changes/:version gives each item's before and after, long texts clipped with their full length", async () => {
    const { noteId } = await newNote();
    const { tabId, slideIds } = await deck(noteId, ["One"]);
    const long = "x".repeat(5000);
    const updated = await agentEdit(noteId, "long", { tab_id: tabId, operation: "slide_update", slide_id: slideIds[0], body: long });
    const detail = await api("GET", `/notes/${noteId}/changes/${updated}`);
    expect(detail.status).toBe(200);
    expect(detail.body.change).toMatchObject({ version: updated, operation: "slide_update", revertible: true });
    expect(detail.body.items).toEqual([
      { item: "slide", id: slideIds[0], tab_id: tabId, change: "updated", before: { body: "One body" }, after: { body: "x".repeat(2000) }, full_lengths: { "after.body": 5000 } },
    ]);
    const deleted = await agentEdit(noteId, "drop", { tab_id: tabId, operation: "slide_delete", slide_id: slideIds[0] });
    const gone = await api("GET", `/notes/${noteId}/changes/${deleted}`);
    expect(gone.body.items).toEqual([expect.objectContaining({ item: "slide", id: slideIds[0], change: "deleted", before: expect.objectContaining({ title: "One" }), after: null })]);
    expect((await api("GET", `/notes/${noteId}/changes/999`)).status).toBe(404);
    expect((await api("GET", `/notes/${noteId}/changes/abc`)).status).toBe(400);
  });
});
