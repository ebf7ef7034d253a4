/**
 * End to end, issue 25's acceptance 1 and 2: the real Worker under `wrangler
 * dev`, the official MCP client over real HTTP (checking every result against
 * the tool's output schema) beside the person's API. An agent and the person
 * co-edit a deck; each takes a change back by its version (docs/spec.md §10)
 * and only that change: the other's work stays. The refusals a model reads
 * (revert_conflict, change_not_found, not_revertible, version_conflict) write
 * nothing, and so do the odd inputs a newcomer sends.
 */
import { describe, expect, it } from "vitest";
import { useAgentAndPerson } from "../support/e2e-agent.js";

const { call, refusal, people } = useAgentAndPerson();

/** The person's API call that must succeed: its body. */
async function person(method: string, path: string, body?: unknown): Promise<any> {
  const answer = await people().request(method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

interface Deck {
  noteId: string;
  tabId: string;
  ids: string[];
  version: number;
}

/** A new approved Note with a deck of `n` slides the agent made ("Slide k", "Body k"). */
async function newDeck(n: number): Promise<Deck> {
  const noteId = `revert-${crypto.randomUUID()}`;
  const version = await people().createApprovedNote(noteId, "Revert e2e");
  const slides = Array.from({ length: n }, (_, i) => ({ title: `Slide ${i + 1}`, body: `Body ${i + 1}` }));
  const deck = await call("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", label: "Plan", slides });
  return { noteId, tabId: deck.tab_id, ids: deck.slide_ids, version: deck.version };
}

/** The deck as read_note_tab gives it: the Note's version and each slide's `id: title / body` in order. */
async function deckOf({ noteId, tabId }: Deck): Promise<{ version: number; slides: string[] }> {
  const read = await call("read_note_tab", { note_id: noteId, tab_id: tabId });
  return { version: read.version, slides: read.slides.map((s: { id: string; index: number; title: string; body: string }) => `${s.index} ${s.id}: ${s.title} / ${s.body}`) };
}

const line = (deck: Deck, n: number, index: number, body = `Body ${n + 1}`, title = `Slide ${n + 1}`) => `${index} ${deck.ids[n]}: ${title} / ${body}`;

describe("an agent and the person take their own changes back, and only those", () => {
  it("acceptance 1: the agent's update reverted (the person's edit stays), the agent's delete reverted by the person (same ID, same place), the revert reverted (a redo), and a resent revert replayed", async () => {
    const deck = await newDeck(4);
    const { noteId, tabId, ids } = deck;
    const slidePath = (id: string) => `/notes/${noteId}/tabs/${tabId}/slides/${id}`;

    const update = await call("edit_note_tab", { note_id: noteId, expected_version: deck.version, idempotency_key: "draft 1", tab_id: tabId, operation: "slide_update", slide_id: ids[0], body: "A bad draft" });
    expect(update.version).toBe(deck.version + 1);
    const edit = await person("PATCH", slidePath(ids[1] as string), { expected_version: update.version, body: "The person's words" });
    expect(edit.version).toBe(update.version + 1);
    const deleted = await call("edit_note_tab", { note_id: noteId, expected_version: edit.version, idempotency_key: "drop 3", tab_id: tabId, operation: "slide_delete", slide_id: ids[2] });
    expect(deleted).toMatchObject({ slide_ids: [ids[2]], slide_count: 3, version: edit.version + 1 });

    // The agent takes its update back: slide 1's body is back, the person's edit on slide 2 stays.
    const revertArgs = { note_id: noteId, expected_version: deleted.version, idempotency_key: "undo draft 1", version: update.version };
    const reverted = await call("revert_note_change", revertArgs);
    expect(reverted).toMatchObject({ note_id: noteId, reverted_version: update.version, version: deleted.version + 1, replayed: false, arguments_differ: false, tab_id: tabId, slide_ids: [ids[0]] });
    expect(await deckOf(deck)).toEqual({ version: reverted.version, slides: [line(deck, 0, 0), line(deck, 1, 1, "The person's words"), line(deck, 3, 2)] });

    // The person takes the agent's delete back: slide 3 with its ID, in its place.
    const undone = await person("POST", `/notes/${noteId}/changes/${deleted.version}/revert`, { expected_version: reverted.version });
    expect(undone).toMatchObject({ note_id: noteId, version: reverted.version + 1, tab: { id: tabId, slide_count: 4 } });
    expect(await deckOf(deck)).toEqual({ version: undone.version, slides: [line(deck, 0, 0), line(deck, 1, 1, "The person's words"), line(deck, 2, 2), line(deck, 3, 3)] });

    // Taking the agent's revert back redoes its update.
    const redo = await call("revert_note_change", { note_id: noteId, expected_version: undone.version, idempotency_key: "redo draft 1", version: reverted.version });
    expect(redo).toMatchObject({ reverted_version: reverted.version, version: undone.version + 1, replayed: false, slide_ids: [ids[0]] });
    const redone = { version: redo.version, slides: [line(deck, 0, 0, "A bad draft"), line(deck, 1, 1, "The person's words"), line(deck, 2, 2), line(deck, 3, 3)] };
    expect(await deckOf(deck)).toEqual(redone);

    // The log names each revert and what it took back.
    const log = await call("list_note_changes", { note_id: noteId, since_version: deleted.version });
    expect(log.changes.map((c: { version: number; operation: string; reverts?: number; actor: { kind: string } }) => [c.version, c.operation, c.reverts, c.actor.kind])).toEqual([
      [reverted.version, "revert_change", update.version, "agent"],
      [undone.version, "revert_change", deleted.version, "person"],
      [redo.version, "revert_change", reverted.version, "agent"],
    ]);

    // The first revert resent with its key (its answer lost): the first answer, replayed, nothing written.
    const resent = await call("revert_note_change", revertArgs);
    expect(resent).toEqual({ ...reverted, replayed: true, current_version: redo.version });
    expect(await deckOf(deck)).toEqual(redone);
  });
});

describe("a revert refused is the tool error a model reads, and writes nothing", () => {
  it("acceptance 2: revert_conflict lists the person's later change to the same slide; change_not_found, not_revertible and version_conflict; nothing written", async () => {
    const deck = await newDeck(2);
    const { noteId, tabId, ids } = deck;
    const update = await call("edit_note_tab", { note_id: noteId, expected_version: deck.version, idempotency_key: "draft", tab_id: tabId, operation: "slide_update", slide_id: ids[0], body: "The agent's draft" });
    const edit = await person("PATCH", `/notes/${noteId}/tabs/${tabId}/slides/${ids[0]}`, { expected_version: update.version, body: "The person's fix" });
    const before = await deckOf(deck);
    expect(before).toEqual({ version: edit.version, slides: [line(deck, 0, 0, "The person's fix"), line(deck, 1, 1)] });
    const revert = (version: number, key: string, expected = edit.version) => refusal("revert_note_change", { note_id: noteId, expected_version: expected, idempotency_key: key, version });

    const conflict = await revert(update.version, "undo draft");
    expect(conflict).toMatchObject({ code: "revert_conflict", version: update.version, changes_complete: true });
    expect(conflict.changes).toEqual([expect.objectContaining({ version: edit.version, operation: "slide_update", actor: { kind: "person", user: "alice" }, tab_id: tabId, slide_ids: [ids[0]] })]);
    expect(conflict.message).toContain(`${edit.version} (slide_update by alice)`);

    expect(await revert(edit.version + 50, "ahead")).toMatchObject({ code: "change_not_found", version: edit.version + 50, oldest_version: 1, current_version: edit.version });
    expect(await revert(1, "creation")).toMatchObject({ code: "not_revertible", version: 1, operation: "create_note" });
    expect(await revert(2, "approval")).toMatchObject({ code: "not_revertible", version: 2, operation: "set_approval" });
    const stale = await revert(edit.version, "stale", update.version);
    expect(stale).toMatchObject({ code: "version_conflict", expected_version: update.version, current_version: edit.version });
    expect(stale.changes.map((c: { version: number }) => c.version)).toEqual([edit.version]);

    // Each refusal wrote nothing; and a refused key was not spent: the person's edit taken back with it goes.
    expect(await deckOf(deck)).toEqual(before);
    const log = await call("list_note_changes", { note_id: noteId, since_version: 0 });
    expect(log.version).toBe(edit.version);
    expect(log.changes.at(-1)).toMatchObject({ version: edit.version, revertible: true });
    const undone = await call("revert_note_change", { note_id: noteId, expected_version: edit.version, idempotency_key: "undo draft", version: edit.version });
    expect(undone).toMatchObject({ reverted_version: edit.version, version: edit.version + 1, replayed: false });
    expect((await deckOf(deck)).slides).toEqual([line(deck, 0, 0, "The agent's draft"), line(deck, 1, 1)]);
  });

  it("odd inputs a newcomer sends: each refused naming the field, nothing written", async () => {
    const deck = await newDeck(1);
    const { noteId } = deck;
    const before = await deckOf(deck);
    const base = { note_id: noteId, expected_version: deck.version, idempotency_key: "odd" };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ version: 0 }, "version", "at least 1"],
      [{ version: -1 }, "version", "at least 1"],
      [{ version: 1.5 }, "version", "must be a whole number"],
      [{ version: "3" }, "version", "expected number"],
      [{ version: null }, "version", "expected number"],
      [{ version: [3] }, "version", "expected number"],
      [{ version: 2 ** 53 }, "version", "at most 9007199254740991"],
      [{}, "version", "required"],
      [{ version: deck.version, idempotency_key: "k".repeat(100_000) }, "idempotency_key", "at most 256 UTF-16 code units (got 100000)"],
      [{ version: deck.version, idempotency_key: "" }, "idempotency_key", "must not be empty"],
      [{ version: deck.version, tab_id: "slides" }, "tab_id", "unexpected field; the fields here are: note_id, expected_version, idempotency_key, version"],
    ];
    for (const [args, path, problem] of cases) {
      const error = await refusal("revert_note_change", { ...base, ...args });
      expect({ args: Object.keys(args), code: error.code, issues: error.issues }).toEqual({ args: Object.keys(args), code: "invalid_arguments", issues: [{ path, problem: expect.stringContaining(problem) }] });
    }
    // The largest whole number JSON carries exactly is a version no log holds yet.
    expect(await refusal("revert_note_change", { ...base, version: 2 ** 53 - 1 })).toMatchObject({ code: "change_not_found", version: 2 ** 53 - 1, current_version: deck.version });
    expect(await deckOf(deck)).toEqual(before);
  });

  it("a revert's revert's revert, and the redo once the change was taken back again: revertible says what a revert then does", async () => {
    const deck = await newDeck(2);
    const { noteId, tabId, ids } = deck;
    let version = deck.version;
    const revert = async (target: number, key: string) => {
      const done = await call("revert_note_change", { note_id: noteId, expected_version: version, idempotency_key: key, version: target });
      version = done.version;
      return done.version as number;
    };
    const update = await call("edit_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "draft", tab_id: tabId, operation: "slide_update", slide_id: ids[1], body: "Draft" });
    version = update.version;
    const undo = await revert(update.version, "undo");
    const redo = await revert(undo, "redo");
    const undoAgain = await revert(redo, "undo the redo");
    expect((await deckOf(deck)).slides).toEqual([line(deck, 0, 0), line(deck, 1, 1)]);
    const redoAgain = await revert(undoAgain, "redo again");
    expect((await deckOf(deck)).slides).toEqual([line(deck, 0, 0), line(deck, 1, 1, "Draft")]);
    // The update taken back once more by a new revert of it: the redo it undid is no longer revertible.
    const last = await revert(update.version, "undo once more");
    const flags = async () => Object.fromEntries((await call("list_note_changes", { note_id: noteId, since_version: update.version - 1 })).changes.map((c: { version: number; revertible: boolean }) => [c.version, c.revertible]));
    expect(await flags()).toEqual({ [update.version]: false, [undo]: false, [redo]: false, [undoAgain]: false, [redoAgain]: false, [last]: true });
    const before = await deckOf(deck);
    expect(before.slides).toEqual([line(deck, 0, 0), line(deck, 1, 1)]);
    for (const target of [redo, redoAgain]) {
      const error = await refusal("revert_note_change", { note_id: noteId, expected_version: version, idempotency_key: `again ${target}`, version: target });
      expect(error).toMatchObject({ code: "revert_conflict", version: target });
      expect(error.changes.map((c: { version: number }) => c.version)).toContain(last);
    }
    expect(await deckOf(deck)).toEqual(before);
  });
});
