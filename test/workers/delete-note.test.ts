/**
 * Deleting a Note through the person's API: the object's storage erased
 * (every table, the alarm included), every member's directory without it,
 * and note_not_found to every later call, a replayed key too. Then the ID is
 * free: a new Note under it starts from nothing.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/note/commands.js";
import type { DirectoryEntry } from "../../src/note/store.js";
import { Note } from "../../src/note/note.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";
import { dumpDatabase } from "../support/dump.js";
import { orThrow } from "../../scripts/lib/person-api.js";
import { api, failure, newNote, ok, personApi, signInAs, TOKENS } from "../support/workers.js";

const PERSON: Caller = { user: "alice", channel: "app" };
const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
/** Every table of the Note object's database, read through the object. */
const dump = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => dumpDatabase(state.storage.sql));
const alarmOf = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => state.storage.getAlarm());

/** The Note IDs a user's directory lists to the person (every Note) and to an agent (approved ones). */
async function listed(noteId: string, who: "alice" | "bob"): Promise<{ person: boolean; agent: boolean }> {
  const person = await api("GET", "/notes", undefined, who === "alice" ? TOKENS.app : TOKENS.bobApp);
  const agent = await ok("list_notes", {}, who === "alice" ? TOKENS.agent : TOKENS.bobAgent);
  return {
    person: person.body.notes.some((n: { note_id: string }) => n.note_id === noteId),
    agent: agent.notes.some((n: { note_id: string }) => n.note_id === noteId),
  };
}

/** A Note with something in every table: a member, a deck with slides, a source, a file, Markdown, a key record (and so an alarm). */
async function fullNote(): Promise<{ noteId: string; version: number; keyed: Record<string, unknown>; created: { tab_id: string } }> {
  const { noteId, version } = await newNote({ title: "Doomed" });
  let v = (await api("POST", `/notes/${noteId}/members`, { user: "bob" })).body.version as number;
  expect(v).toBe(version + 1);
  const keyed = { note_id: noteId, expected_version: v, idempotency_key: "deck-1", tab_type: "slides", slides: [{ title: "One" }] };
  const created = await ok("create_note_tab", keyed);
  v = (await ok("add_note_source", { note_id: noteId, expected_version: created.version, idempotency_key: "src", title: "S", url: "https://example.org/s" })).version;
  v = (await api("POST", `/notes/${noteId}/files`, { name: "a.pdf", media_type: "application/pdf", size_bytes: 10 })).body.version;
  v = (await api("PUT", `/notes/${noteId}/markdown`, { text: "# Text" })).body.version;
  // The search documents those writes queued reach the directories now (the alarm, SEARCH_DELIVERY_MS): the outbox starts empty.
  await runDurableObjectAlarm(stubOf(noteId));
  return { noteId, version: v, keyed, created };
}

beforeAll(() => signInAs("agent", "app", "bobAgent", "bobApp"));

describe("DELETE /api/v1/notes/:id", () => {
  it("erases the object's storage, alarm included, and every member's directory drops the Note", async () => {
    const { noteId, version } = await fullNote();
    expect(await listed(noteId, "alice")).toEqual({ person: true, agent: true });
    expect(await listed(noteId, "bob")).toEqual({ person: true, agent: true });
    expect(await alarmOf(noteId)).not.toBeNull();

    const deleted = await api("DELETE", `/notes/${noteId}`, { expected_version: version });
    expect(deleted).toEqual({ status: 200, body: { note_id: noteId, version: version + 1 } });

    // Read through the object before any other call reaches it: no table, no row, no alarm.
    expect(await dump(noteId)).toBe("{}");
    expect(await alarmOf(noteId)).toBeNull();
    expect(await listed(noteId, "alice")).toEqual({ person: false, agent: false });
    expect(await listed(noteId, "bob")).toEqual({ person: false, agent: false });
  });

  it("afterwards every call answers note_not_found: a replayed key, reads, the person's changes, a second delete", async () => {
    const { noteId, version, keyed } = await fullNote();
    expect((await api("DELETE", `/notes/${noteId}?expected_version=${version}`)).status).toBe(200);

    expect(await failure("create_note_tab", keyed)).toMatchObject({ code: "note_not_found", note_id: noteId });
    expect(await failure("list_note_tabs", { note_id: noteId })).toMatchObject({ code: "note_not_found" });
    expect(await failure("list_note_tabs", { note_id: noteId }, TOKENS.bobAgent)).toMatchObject({ code: "note_not_found" });
    for (const [method, path, body] of [
      ["GET", `/notes/${noteId}`, undefined],
      ["PATCH", `/notes/${noteId}`, { title: "Back" }],
      ["DELETE", `/notes/${noteId}`, undefined],
      ["PUT", `/notes/${noteId}/approval`, { approved: false }],
      ["POST", `/notes/${noteId}/members`, { user: "carol" }],
    ] as const) {
      const answer = await api(method, path, body);
      expect({ method, path, status: answer.status, code: answer.body.error?.code }).toEqual({ method, path, status: 404, code: "note_not_found" });
    }
  });

  it("a stale or bad delete is refused and deletes nothing", async () => {
    const { noteId, version } = await newNote();
    const before = await dump(noteId);
    const stale = await api("DELETE", `/notes/${noteId}`, { expected_version: version - 1 });
    expect({ status: stale.status, code: stale.body.error.code }).toEqual({ status: 409, code: "version_conflict" });
    const both = await api("DELETE", `/notes/${noteId}?expected_version=${version}`, { expected_version: version });
    expect({ status: both.status, issues: both.body.error.issues }).toEqual({ status: 400, issues: [{ path: "expected_version", problem: expect.stringContaining("both") }] });
    const extra = await api("DELETE", `/notes/${noteId}`, { force: true });
    expect({ status: extra.status, issues: extra.body.error.issues }).toEqual({ status: 400, issues: [{ path: "force", problem: "unexpected field; the fields here are: expected_version" }] });
    const stranger = await api("DELETE", `/notes/${noteId}`, undefined, TOKENS.bobApp);
    expect({ status: stranger.status, code: stranger.body.error.code }).toEqual({ status: 404, code: "note_not_found" });
    expect(await dump(noteId)).toBe(before);
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
  });

  it("the ID is free again: create_note makes a new Note from nothing, where an old key is a new intent", async () => {
    const { noteId, version, keyed, created } = await fullNote();
    expect(orThrow(await personApi().deleteNote(noteId), "delete the Note")).toEqual({ note_id: noteId, version: version + 1 });
    const again = await api("POST", "/notes", { note_id: noteId, title: "Reborn" });
    expect(again).toEqual({ status: 201, body: { note_id: noteId, title: "Reborn", approved: false, version: 1 } });
    expect((await api("PUT", `/notes/${noteId}/approval`, { approved: true })).body.version).toBe(2);
    const list = await ok("list_note_tabs", { note_id: noteId });
    expect(list).toMatchObject({ title: "Reborn", version: 2 });
    expect(list.tabs.map((t: { id: string }) => t.id)).toEqual(["markdown", "files", "sources"]);
    // bob was a member of the deleted Note, not of this one.
    expect(await listed(noteId, "bob")).toEqual({ person: false, agent: false });
    expect(await listed(noteId, "alice")).toEqual({ person: true, agent: true });
    const fresh = await ok("create_note_tab", { ...keyed, expected_version: 2 });
    expect(fresh.replayed).toBe(false);
    expect(fresh.tab_id).not.toBe(created.tab_id);
    expect(version).toBeGreaterThan(2);
  });
});

describe("a deletion refused", () => {
  it("a stale or misspelt version in the query deletes nothing", async () => {
    const { noteId, version } = await fullNote();
    const before = await dump(noteId);
    const stale = await api("DELETE", `/notes/${noteId}?expected_version=${version - 1}`);
    expect({ status: stale.status, code: stale.body.error.code }).toEqual({ status: 409, code: "version_conflict" });
    const misspelt = await api("DELETE", `/notes/${noteId}?expected_versoin=${version}`);
    expect({ status: misspelt.status, issues: misspelt.body.error.issues }).toEqual({ status: 400, issues: [{ path: "expected_versoin", problem: "unexpected field; the fields here are: expected_version" }] });
    expect(await dump(noteId)).toBe(before);
    expect(await listed(noteId, "bob")).toEqual({ person: true, agent: true });
  });
});

describe("a deletion whose directory deliveries are still owed", () => {
  it("stays a tombstone (note_not_found, the ID not yet free) until the alarm delivers the removals and erases the Note", async () => {
    const { noteId, keyed } = await fullNote();
    // The deletion committed, its removals queued and not yet delivered: as when a directory could not be reached.
    const tombstone = await runInDurableObject(stubOf(noteId), (_instance, state) => {
      const store = new SqliteNoteStore(new Sql(state.storage.sql), state.storage);
      const result = new Note(noteId, store, { now: Date.now }).execute(PERSON, "delete_note", {});
      return { ok: result.ok, owed: store.owedDirectoryEntries().map((o) => [o.user, o.entry.removed]) };
    });
    expect(tombstone).toEqual({ ok: true, owed: [["alice", true], ["bob", true]] });
    const before = await dump(noteId);

    expect(await failure("list_note_tabs", { note_id: noteId })).toMatchObject({ code: "note_not_found" });
    // The tombstone still holds the key records: a resent key is refused by access, before the key is looked up.
    expect(await failure("create_note_tab", keyed)).toMatchObject({ code: "note_not_found" });
    expect((await api("PATCH", `/notes/${noteId}`, { title: "Renamed late" })).status).toBe(404);
    expect((await api("DELETE", `/notes/${noteId}`)).status).toBe(404);
    const create = await api("POST", "/notes", { note_id: noteId, title: "Too soon" });
    expect({ status: create.status, code: create.body.error.code, message: create.body.error.message }).toEqual({
      status: 409,
      code: "note_exists",
      message: expect.stringContaining("being deleted"),
    });
    expect(await listed(noteId, "bob")).toEqual({ person: true, agent: true });
    // Every refused call left the tombstone's tables as they were.
    expect(await dump(noteId)).toBe(before);

    await runInDurableObject(stubOf(noteId), (instance) => instance.alarm());
    expect(await dump(noteId)).toBe("{}");
    expect(await alarmOf(noteId)).toBeNull();
    expect(await listed(noteId, "alice")).toEqual({ person: false, agent: false });
    expect(await listed(noteId, "bob")).toEqual({ person: false, agent: false });
  });

  it("the deletion sets the alarm before it delivers the removals: an object reset mid-delivery still ends erased", async () => {
    // A Note without idempotency records, so without an alarm of its own.
    const { noteId } = await newNote({ title: "Reset mid-delivery" });
    expect((await api("POST", `/notes/${noteId}/members`, { user: "bob" })).status).toBe(200);
    expect(await alarmOf(noteId)).toBeNull();
    const seen = await runInDurableObject(stubOf(noteId), async (instance, state) => {
      // Directories that hold the first removal until the test has looked: the moment a reset would lose the delivery.
      let release = (): void => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached = (): void => {};
      const delivering = new Promise<void>((resolve) => (reached = resolve));
      const object = instance as unknown as { env: typeof env };
      const real = object.env;
      const directories = {
        idFromName: (user: string) => user,
        get: (user: string) => ({
          receiveAll: async (entries: DirectoryEntry[]) => {
            reached();
            await held;
            await real.DIRECTORY.get(real.DIRECTORY.idFromName(user)).receiveAll(entries);
          },
        }),
      };
      object.env = { ...real, DIRECTORY: directories as unknown as typeof env.DIRECTORY };
      try {
        const deletion = instance.execute(noteId, PERSON, "delete_note", {});
        await delivering;
        // Reset here, no later call would deliver the removals (each answers note_not_found): only an alarm does.
        const alarm = await state.storage.getAlarm();
        release();
        return { alarm, ok: (await deletion).ok, after: await state.storage.getAlarm() };
      } finally {
        object.env = real;
      }
    });
    expect(seen).toEqual({ alarm: expect.any(Number), ok: true, after: null });
    expect(await dump(noteId)).toBe("{}");
    expect(await listed(noteId, "bob")).toEqual({ person: false, agent: false });
  });

  it("entries queued before the deletion are dropped with it: a rename not yet delivered never lists the Note again", async () => {
    const { noteId } = await fullNote();
    await runInDurableObject(stubOf(noteId), (_instance, state) => {
      const store = new SqliteNoteStore(new Sql(state.storage.sql), state.storage);
      const result = new Note(noteId, store, { now: Date.now }).execute(PERSON, "rename_note", { title: "Renamed, undelivered" });
      expect(result.ok).toBe(true);
      expect(store.owedDirectoryEntries()).toHaveLength(2);
    });
    expect((await api("DELETE", `/notes/${noteId}`)).status).toBe(200);
    expect(await dump(noteId)).toBe("{}");
    expect(await listed(noteId, "alice")).toEqual({ person: false, agent: false });
    expect(await listed(noteId, "bob")).toEqual({ person: false, agent: false });
  });

  it("a rename racing a deletion never lists the Note again, whichever the object runs first", async () => {
    for (let i = 0; i < 5; i++) {
      const { noteId } = await fullNote();
      const [rename, deletion] = await Promise.all([api("PATCH", `/notes/${noteId}`, { title: `Race ${i}` }), api("DELETE", `/notes/${noteId}`)]);
      expect(deletion.status).toBe(200);
      expect([200, 404]).toContain(rename.status);
      expect(await dump(noteId)).toBe("{}");
      expect(await listed(noteId, "alice")).toEqual({ person: false, agent: false });
      expect(await listed(noteId, "bob")).toEqual({ person: false, agent: false });
    }
  });

  it("an entry already on its way when the deletion commits reaches each directory before the removal", async () => {
    const { noteId } = await fullNote();
    const received: string[] = [];
    const order = await runInDurableObject(stubOf(noteId), async (instance, state) => {
      // Directories that record what they receive; alice's first delivery is slow, as over a congested link.
      let slow = true;
      const directories = {
        idFromName: (user: string) => user,
        get: (user: string) => ({
          receiveAll: async (entries: { removed?: boolean; title: string }[]) => {
            if (user === "alice" && slow) {
              slow = false;
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
            for (const entry of entries) received.push(`${user} ${entry.removed === true ? "removed" : entry.title}`);
          },
        }),
      };
      const object = instance as unknown as { env: typeof env };
      const real = object.env;
      object.env = { ...real, DIRECTORY: directories as unknown as typeof env.DIRECTORY };
      try {
        const rename = instance.execute(noteId, PERSON, "rename_note", { title: "On its way" });
        await new Promise((resolve) => setTimeout(resolve, 5));
        const deletion = await instance.execute(noteId, PERSON, "delete_note", {});
        expect((await rename).ok).toBe(true);
        expect(deletion.ok).toBe(true);
      } finally {
        object.env = real;
      }
      return { received, tables: dumpDatabase(state.storage.sql), alarm: await state.storage.getAlarm() };
    });
    // Each user's directory in the order queued (the users side by side: alice's slow link holds only hers).
    for (const user of ["alice", "bob"]) expect(order.received.filter((r) => r.startsWith(`${user} `))).toEqual([`${user} On its way`, `${user} removed`]);
    expect(order.tables).toBe("{}");
    expect(order.alarm).toBeNull();
  });

  it("an erasure that fails leaves the tombstone and an alarm, which erases it", async () => {
    const { noteId } = await fullNote();
    const failed = await runInDurableObject(stubOf(noteId), async (instance, state) => {
      const storage = state.storage as { deleteAll: () => Promise<void> };
      const original = storage.deleteAll;
      storage.deleteAll = async () => {
        throw new Error("storage unavailable");
      };
      try {
        const result = await instance.execute(noteId, PERSON, "delete_note", {});
        return { ok: result.ok, meta: state.storage.sql.exec("SELECT deleted FROM meta").toArray(), alarm: await state.storage.getAlarm() };
      } finally {
        storage.deleteAll = original;
      }
    });
    expect(failed).toEqual({ ok: true, meta: [{ deleted: 1 }], alarm: expect.any(Number) });
    expect(await failure("list_note_tabs", { note_id: noteId })).toMatchObject({ code: "note_not_found" });
    expect(await listed(noteId, "alice")).toEqual({ person: false, agent: false });

    await runInDurableObject(stubOf(noteId), (instance) => instance.alarm());
    expect(await dump(noteId)).toBe("{}");
    expect(await alarmOf(noteId)).toBeNull();
  });
});
