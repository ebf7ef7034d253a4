/** Nothing acknowledged is lost: writes and idempotency records survive the object being restarted. */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DIRECTORY_MIGRATIONS, NOTE_MIGRATIONS, migrate } from "../../src/storage/migrations.js";
import { Sql } from "../../src/storage/sql.js";
import { dumpDatabase } from "../support/dump.js";
import { indexRules, sqliteTables } from "../support/note-tables.js";
import type { DirectoryEntry } from "../../src/note/store.js";
import { deliverOwed, restartAfterDelivery } from "../support/restart.js";
import { api, newNote, ok, tool } from "../support/workers.js";

/** Takes a database back to the schema before migration 10, as a Note written then holds it: no search index. */
function beforeMigration10(sql: Sql): void {
  sql.run("DROP TABLE search");
  sql.run("DELETE FROM schema_migrations WHERE version = 10");
}

/** Takes a database back to the schema before migration 9, as a Note written then holds it: no undo information, no touch index. */
function beforeMigration9(sql: Sql): void {
  beforeMigration10(sql);
  sql.run("DROP TABLE touched");
  sql.run("DELETE FROM slides WHERE tab_id LIKE '~%'");
  sql.run("DELETE FROM sheet_rows WHERE tab_id LIKE '~%'");
  sql.run("ALTER TABLE changes DROP COLUMN touch");
  sql.run("ALTER TABLE changes DROP COLUMN undo");
  sql.run("DELETE FROM schema_migrations WHERE version = 9");
}

/** Takes a database back to the schema before migration 8, as a Note written then holds it: no change log. */
function beforeMigration8(sql: Sql): void {
  beforeMigration9(sql);
  sql.run("DROP TABLE changes");
  sql.run("DELETE FROM schema_migrations WHERE version = 8");
}

/**
 * Takes a database back to the schema before migration 7, as a Note written
 * then holds it: slides numbered 0..n-1 (the keys a Note of today's code gets
 * by appending, divided by the gap), no slide ID index, no Sheet rows, no row
 * counter, no row count or columns on tabs.
 */
function beforeMigration7(sql: Sql): void {
  beforeMigration8(sql);
  sql.run("DROP TABLE sheet_rows");
  sql.run("DROP INDEX slides_id");
  sql.run("UPDATE slides SET idx = idx / 1024");
  sql.run("ALTER TABLE meta DROP COLUMN next_row_n");
  sql.run("ALTER TABLE tabs DROP COLUMN row_count");
  sql.run("ALTER TABLE tabs DROP COLUMN columns");
  sql.run("DELETE FROM schema_migrations WHERE version = 7");
}

describe("durability", () => {
  it("acknowledged writes and idempotency records survive a restart of the object", async () => {
    const { noteId, version } = await newNote();
    const call = { note_id: noteId, expected_version: version, idempotency_key: "before-restart", tab_type: "slides", slides: [{ title: "One" }, { title: "Two" }] };
    const created = await ok("create_note_tab", call);
    const source = await ok("add_note_source", { note_id: noteId, expected_version: created.version, idempotency_key: "src", title: "R", url: "https://example.org/r" });

    await restartAfterDelivery();

    const list = await ok("list_note_tabs", { note_id: noteId });
    expect(list.version).toBe(source.version);
    expect(list.tabs.find((t: any) => t.id === created.tab_id)).toMatchObject({ slide_count: 2 });
    expect(await ok("create_note_tab", call)).toEqual({ ...created, replayed: true, current_version: source.version });
    const page = await ok("list_note_attachments", { note_id: noteId, kind: "sources" });
    expect(page.items.map((i: any) => i.id)).toEqual([source.source_id]);
  });

  it("migrations are applied once, and applying them again keeps every row", async () => {
    const { noteId } = await newNote();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const rows = await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      const before = sql.first<{ n: number }>("SELECT COUNT(*) AS n FROM tabs")?.n;
      state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
      const applied = sql.all<{ version: number }>("SELECT version FROM schema_migrations").map((r) => r.version);
      return { before, after: sql.first<{ n: number }>("SELECT COUNT(*) AS n FROM tabs")?.n, applied };
    });
    expect(rows.before).toBe(3);
    expect(rows.after).toBe(3);
    expect(rows.applied).toEqual(NOTE_MIGRATIONS.map((m) => m.version));
  });

  it("migration 2 counts the tabs of a Note written before it, and new tabs go to the end of its strip", async () => {
    const { noteId, version } = await newNote();
    const first = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "a", tab_type: "slides" });
    const second = await ok("create_note_tab", { note_id: noteId, expected_version: first.version, idempotency_key: "b", tab_type: "sheet" });
    await deliverOwed();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const counted = await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      // The database as schema 1 left it: no tab_count, no fingerprint, no deleted, no slide IDs, no Sheet rows, migrations 2 to 7 not applied.
      state.storage.transactionSync(() => {
        beforeMigration7(sql);
        sql.run("ALTER TABLE meta DROP COLUMN tab_count");
        sql.run("ALTER TABLE meta DROP COLUMN deleted");
        sql.run("ALTER TABLE meta DROP COLUMN next_slide_n");
        sql.run("ALTER TABLE slides DROP COLUMN id");
        sql.run("ALTER TABLE idempotency DROP COLUMN fingerprint");
        sql.run("DELETE FROM schema_migrations WHERE version >= 2");
      });
      state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
      return sql.first<{ tab_count: number }>("SELECT tab_count FROM meta")?.tab_count;
    });
    expect(counted).toBe(5);
    await abortAllDurableObjects();
    const third = await ok("create_note_tab", { note_id: noteId, expected_version: second.version, idempotency_key: "c", tab_type: "slides" });
    expect(third.position).toBe(5);
    const list = await ok("list_note_tabs", { note_id: noteId });
    expect(list.tabs.map((t: any) => t.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("migration 3 keeps the key records written before fingerprints: they replay their first result, arguments not compared", async () => {
    const { noteId, version } = await newNote();
    const call = { note_id: noteId, expected_version: version, idempotency_key: "old-key", tab_type: "slides", label: "Old" };
    const first = await ok("create_note_tab", call);
    await deliverOwed();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const kept = await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      // The key record as schema 2 wrote it: no fingerprint column.
      state.storage.transactionSync(() => {
        sql.run("ALTER TABLE idempotency DROP COLUMN fingerprint");
        sql.run("DELETE FROM schema_migrations WHERE version = 3");
      });
      state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
      return sql.all<{ key: string; fingerprint: string | null }>("SELECT key, fingerprint FROM idempotency");
    });
    expect(kept).toEqual([{ key: "old-key", fingerprint: null }]);
    await abortAllDurableObjects();
    expect(await ok("create_note_tab", { ...call, label: "Other" })).toEqual({ ...first, replayed: true, arguments_differ: false, current_version: first.version });
    const next = await ok("create_note_tab", { ...call, expected_version: first.version, idempotency_key: "new-key" });
    expect(await ok("create_note_tab", { ...call, expected_version: first.version, idempotency_key: "new-key", label: "Other" })).toMatchObject({
      tab_id: next.tab_id,
      arguments_differ: true,
    });
  });

  it("migration 4 repairs a strip a refused add_tab left behind (ties, short count, counter behind) and leaves a sound Note as it was", async () => {
    const damaged = await newNote();
    const sound = await newNote();
    const first = await ok("create_note_tab", { note_id: sound.noteId, expected_version: sound.version, idempotency_key: "a", tab_type: "slides" });
    const repair = (noteId: string, damage: (sql: Sql) => void) =>
      runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), (_instance, state) => {
        const sql = new Sql(state.storage.sql);
        state.storage.transactionSync(() => {
          damage(sql);
          sql.run("DELETE FROM schema_migrations WHERE version = 4");
        });
        const before = dumpDatabase(state.storage.sql);
        state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
        return { before, after: dumpDatabase(state.storage.sql), meta: sql.first<{ version: number; tab_count: number; next_tab_n: number }>("SELECT version, tab_count, next_tab_n FROM meta") };
      });
    // What the old add_tab left: its row at the end of the strip, uncounted, then the next tab on the same place and n.
    const left = await repair(damaged.noteId, (sql) => {
      sql.run("INSERT INTO tabs (id, type, label, position, slide_count) VALUES ('slides-1-aaaa', 'slides', 'x', 3, 0)");
      sql.run("INSERT INTO tabs (id, type, label, position, slide_count) VALUES ('slides-1-aaab', 'slides', 'y', 3, 0)");
      sql.run("UPDATE meta SET tab_count = 4, version = version + 1");
    });
    expect(left.meta).toEqual({ version: damaged.version + 2, tab_count: 5, next_tab_n: 2 });
    const tabs = (await ok("list_note_tabs", { note_id: damaged.noteId })).tabs.map((t: { id: string; position: number }) => [t.id, t.position]);
    expect(tabs).toEqual([["markdown", 0], ["files", 1], ["sources", 2], ["slides-1-aaaa", 3], ["slides-1-aaab", 4]]);
    const next = await ok("create_note_tab", { note_id: damaged.noteId, expected_version: damaged.version + 2, idempotency_key: "n", tab_type: "sheet" });
    expect(next).toMatchObject({ position: 5 });
    expect(next.tab_id).toMatch(/^sheet-2-/);

    const untouched = await repair(sound.noteId, () => {});
    const withoutMigrations = (dump: string) => JSON.stringify({ ...JSON.parse(dump), schema_migrations: null });
    expect(withoutMigrations(untouched.after)).toBe(withoutMigrations(untouched.before));
    expect(untouched.meta?.version).toBe(first.version);
  });

  it("migration 6 gives the slides of a Note written before it IDs in strip and deck order, and new slides never reuse them", async () => {
    const { noteId, version } = await newNote();
    const first = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "a", tab_type: "slides", slides: [{ title: "A1" }, { title: "A2" }] });
    const second = await ok("create_note_tab", { note_id: noteId, expected_version: first.version, idempotency_key: "b", tab_type: "slides", slides: [{ title: "B1" }] });
    await deliverOwed();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const upgraded = await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      // The database as schema 5 left it: slides without IDs, no slide counter; the second tab moved before the first.
      state.storage.transactionSync(() => {
        beforeMigration7(sql);
        sql.run("ALTER TABLE meta DROP COLUMN next_slide_n");
        sql.run("ALTER TABLE slides DROP COLUMN id");
        sql.run("UPDATE tabs SET position = 7 - position WHERE position IN (3, 4)");
        sql.run("DELETE FROM schema_migrations WHERE version = 6");
      });
      state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
      return {
        slides: sql.all<{ title: string; id: string }>("SELECT slides.title, slides.id FROM slides JOIN tabs ON tabs.id = slides.tab_id ORDER BY tabs.position, slides.idx"),
        next: sql.first<{ n: number }>("SELECT next_slide_n AS n FROM meta")?.n,
      };
    });
    expect(upgraded.slides.map((s) => s.title)).toEqual(["B1", "A1", "A2"]);
    expect(upgraded.slides.map((s) => s.id.replace(/-[0-9a-z]+$/, ""))).toEqual(["slide-1", "slide-2", "slide-3"]);
    expect(upgraded.slides.every((s) => /^slide-\d+-[0-9a-z]+$/.test(s.id))).toBe(true);
    expect(upgraded.next).toBe(4);
    await abortAllDurableObjects();
    const read = await ok("read_note_tab", { note_id: noteId, tab_id: first.tab_id });
    expect(read.slides.map((s: { id: string }) => s.id)).toEqual(upgraded.slides.slice(1).map((s) => s.id));
    const added = await ok("edit_note_tab", { note_id: noteId, expected_version: second.version, idempotency_key: "c", tab_id: second.tab_id, operation: "slide_add", title: "B2" });
    expect(added.slide_ids).toHaveLength(1);
    expect(added.slide_ids[0]).toMatch(/^slide-4-[0-9a-z]+$/);
  });

  it("migration 7 gives the slides of a Note written before it order keys ×1024, in the same order with the same IDs: found by ID, appended after, and Sheets work", async () => {
    const { noteId, version } = await newNote();
    const slides = (...titles: string[]) => titles.map((title) => ({ title, body: `${title} body` }));
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "a", tab_type: "slides", slides: slides("A1", "A2", "A3") });
    const other = await ok("create_note_tab", { note_id: noteId, expected_version: deck.version, idempotency_key: "b", tab_type: "slides", slides: slides("B1", "B2") });
    const oldSheet = await ok("create_note_tab", { note_id: noteId, expected_version: other.version, idempotency_key: "c", tab_type: "sheet", label: "Old sheet" });
    await deliverOwed();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    type SlideRow = { tab_id: string; idx: number; id: string; title: string };
    const upgraded = await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      const slideRows = () => sql.all<SlideRow>("SELECT tab_id, idx, id, title FROM slides ORDER BY tab_id, idx");
      // The database as schema 6 left it: slides numbered 0..n-1 in each deck, no Sheet rows.
      state.storage.transactionSync(() => beforeMigration7(sql));
      const before = slideRows();
      state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
      return {
        before,
        after: slideRows(),
        meta: sql.first<{ next_slide_n: number; next_row_n: number }>("SELECT next_slide_n, next_row_n FROM meta"),
        tabs: sql.all<{ id: string; row_count: number; columns: string }>("SELECT id, row_count, columns FROM tabs ORDER BY position"),
      };
    });
    // Schema 6's numbering, then the same slides with their IDs, in the same order, keys times the gap.
    const ids = [...deck.slide_ids, ...other.slide_ids];
    expect(upgraded.before.map((s) => [s.id, s.idx])).toEqual(expect.arrayContaining(ids.map((id, i) => [id, i < 3 ? i : i - 3])));
    expect(upgraded.after).toEqual(upgraded.before.map((s) => ({ ...s, idx: s.idx * 1024 })));
    expect(upgraded.meta).toEqual({ next_slide_n: 6, next_row_n: 1 });
    expect(upgraded.tabs.map((t) => [t.row_count, t.columns])).toEqual(Array.from({ length: 6 }, () => [0, "[]"]));
    await abortAllDurableObjects();

    const read = async (tabId: string) => (await ok("read_note_tab", { note_id: noteId, tab_id: tabId })) as { slides: { id: string; title: string; body: string }[] };
    expect((await read(deck.tab_id)).slides.map((s) => [s.id, s.title])).toEqual([0, 1, 2].map((i) => [deck.slide_ids[i], `A${i + 1}`]));
    // An old slide is found by its ID: updated in place, then deleted; a new one goes after the last.
    const updated = await ok("edit_note_tab", { note_id: noteId, expected_version: oldSheet.version, idempotency_key: "d", tab_id: deck.tab_id, operation: "slide_update", slide_id: deck.slide_ids[1], body: "corrected" });
    expect(updated).toMatchObject({ slide_ids: [deck.slide_ids[1]], slide_count: 3 });
    const deleted = await ok("edit_note_tab", { note_id: noteId, expected_version: updated.version, idempotency_key: "e", tab_id: other.tab_id, operation: "slide_delete", slide_id: other.slide_ids[0] });
    expect(deleted).toMatchObject({ slide_ids: [other.slide_ids[0]], slide_count: 1 });
    const added = await ok("edit_note_tab", { note_id: noteId, expected_version: deleted.version, idempotency_key: "f", tab_id: deck.tab_id, operation: "slide_add", title: "A4" });
    expect(added.slide_ids).toHaveLength(1);
    expect(added.slide_ids[0]).toMatch(/^slide-6-[0-9a-z]+$/);
    expect((await read(deck.tab_id)).slides.map((s) => [s.id, s.title, s.body])).toEqual([
      [deck.slide_ids[0], "A1", "A1 body"],
      [deck.slide_ids[1], "A2", "corrected"],
      [deck.slide_ids[2], "A3", "A3 body"],
      [added.slide_ids[0], "A4", ""],
    ]);
    expect((await read(other.tab_id)).slides.map((s) => s.id)).toEqual([other.slide_ids[1]]);
    // The person moves an old slide between two others: it takes a key between theirs.
    const moved = await api("PATCH", `/notes/${noteId}/tabs/${deck.tab_id}/slides/${deck.slide_ids[0]}`, { after_id: deck.slide_ids[2] });
    expect(moved.status).toBe(200);
    expect((await read(deck.tab_id)).slides.map((s) => s.title)).toEqual(["A2", "A3", "A1", "A4"]);
    // A stub of an aborted object stays broken: a new one reaches the restarted object.
    const keys = await runInDurableObject(env.NOTES.get(env.NOTES.idFromName(noteId)), (_instance, state) =>
      new Sql(state.storage.sql).all<{ id: string; idx: number }>("SELECT id, idx FROM slides WHERE tab_id = ? ORDER BY idx", deck.tab_id),
    );
    expect(keys).toEqual([
      { id: deck.slide_ids[1], idx: 1024 },
      { id: deck.slide_ids[2], idx: 2048 },
      { id: deck.slide_ids[0], idx: 2560 },
      { id: added.slide_ids[0], idx: 3072 },
    ]);

    // A Sheet from before the migration takes columns and rows; a new one is created with them.
    let at = moved.body.version as number;
    const columns = await ok("edit_note_tab", { note_id: noteId, expected_version: at, idempotency_key: "g", tab_id: oldSheet.tab_id, operation: "columns_add", columns: ["Name", "Age"] });
    const appended = await ok("edit_note_tab", { note_id: noteId, expected_version: columns.version, idempotency_key: "h", tab_id: oldSheet.tab_id, operation: "rows_append", rows: [{ Name: "Ada", Age: 36 }, { Name: "Alan" }] });
    expect(appended).toMatchObject({ row_count: 2, columns: ["Name", "Age"] });
    expect(appended.row_ids.map((id: string) => id.replace(/-[0-9a-z]+$/, ""))).toEqual(["row-1", "row-2"]);
    const sheet = await ok("create_note_tab", { note_id: noteId, expected_version: appended.version, idempotency_key: "i", tab_type: "sheet", columns: ["X"], rows: [{ X: 1 }] });
    expect(sheet).toMatchObject({ tab_type: "sheet", columns: ["X"], row_count: 1 });
    expect(sheet.row_ids[0]).toMatch(/^row-3-[0-9a-z]+$/);
    at = sheet.version;
    await ok("edit_note_tab", { note_id: noteId, expected_version: at, idempotency_key: "j", tab_id: oldSheet.tab_id, operation: "row_update", row_id: appended.row_ids[1], cells: { Age: 41 } });
    const rows = await ok("read_note_tab", { note_id: noteId, tab_id: oldSheet.tab_id });
    expect(rows).toMatchObject({ columns: ["Name", "Age"], next_cursor: null });
    expect(rows.rows).toEqual([
      { id: appended.row_ids[0], index: 0, cells: { Name: "Ada", Age: 36 } },
      { id: appended.row_ids[1], index: 1, cells: { Name: "Alan", Age: 41 } },
    ]);
  });

  it("migration 9: a Note written before it keeps working; its earlier changes are not revertible, its later ones are", async () => {
    const { noteId, version } = await newNote();
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "a", tab_type: "slides", slides: [{ title: "A1", body: "old" }] });
    const updated = await ok("edit_note_tab", { note_id: noteId, expected_version: deck.version, idempotency_key: "u", tab_id: deck.tab_id, operation: "slide_update", slide_id: deck.slide_ids[0], body: "new" });
    await deliverOwed();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    await runInDurableObject(stub, (_instance, state) => state.storage.transactionSync(() => beforeMigration9(new Sql(state.storage.sql))));
    await abortAllDurableObjects();

    const log = await ok("list_note_changes", { note_id: noteId, since_version: 0 });
    expect(log.changes.map((c: { version: number; revertible: boolean }) => [c.version, c.revertible])).toEqual([[1, false], [2, false], [deck.version, false], [updated.version, false]]);
    const refused = await tool("revert_note_change", { note_id: noteId, expected_version: updated.version, idempotency_key: "r", version: updated.version });
    expect(refused.data).toMatchObject({ code: "not_revertible", version: updated.version, operation: "slide_update" });
    expect(refused.data.reason).toMatch(/undo information is gone/);

    // A change after the upgrade is revertible, and its revert works.
    const again = await ok("edit_note_tab", { note_id: noteId, expected_version: updated.version, idempotency_key: "v", tab_id: deck.tab_id, operation: "slide_update", slide_id: deck.slide_ids[0], body: "newer" });
    const reverted = await ok("revert_note_change", { note_id: noteId, expected_version: again.version, idempotency_key: "r2", version: again.version });
    expect(reverted).toMatchObject({ reverted_version: again.version, slide_ids: deck.slide_ids });
    const read = await ok("read_note_tab", { note_id: noteId, tab_id: deck.tab_id });
    expect(read.slides[0].body).toBe("new");
  });

  it("migration 8 gives a Note written before it an empty change log: its first entry is the first change after, and list_note_changes pages from there", async () => {
    const { noteId, version } = await newNote();
    const deck = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "a", tab_type: "slides", slides: [{ title: "A1" }] });
    const before = deck.version as number;
    await deliverOwed();
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    // The database as schema 7 left it; the object upgrades it when it next starts.
    await runInDurableObject(stub, (_instance, state) => state.storage.transactionSync(() => beforeMigration8(new Sql(state.storage.sql))));
    await abortAllDurableObjects();

    const changes = (input: Record<string, unknown>) => ok("list_note_changes", { note_id: noteId, ...input });
    // Nothing changed since the upgrade: an empty log, and no next page, from any version.
    expect(await changes({ since_version: 0 })).toEqual({ note_id: noteId, version: before, oldest_version: null, changes: [], next_since_version: null });
    expect(await changes({ since_version: before })).toMatchObject({ changes: [], next_since_version: null });

    // Three changes after it, by the agent and the person.
    const added = await ok("edit_note_tab", { note_id: noteId, expected_version: before, idempotency_key: "b", tab_id: deck.tab_id, operation: "slide_add", title: "A2" });
    const renamed = await api("PATCH", `/notes/${noteId}/tabs/${deck.tab_id}`, { label: "Renamed" });
    expect(renamed.status).toBe(200);
    const source = await ok("add_note_source", { note_id: noteId, expected_version: before + 2, idempotency_key: "c", title: "R", url: "https://example.org/r" });
    expect(source.version).toBe(before + 3);

    // The agent by its OAuth client (its registered name is the sign-in's business, tested there).
    const agent = expect.objectContaining({ kind: "agent", user: "alice", client_id: expect.any(String) });
    const log = [
      { version: before + 1, actor: agent, operation: "slide_add", tab_id: deck.tab_id, slide_ids: added.slide_ids, tab_label: "Slides" },
      { version: before + 2, actor: { kind: "person", user: "alice" }, operation: "rename_tab", tab_id: deck.tab_id, tab_label: "Renamed", tab_label_before: "Slides" },
      { version: before + 3, actor: agent, operation: "add_source", tab_id: "sources", source_id: source.source_id, tab_label: "Sources", source_title: "R" },
    ];
    const whole = await changes({ since_version: 0, limit: 3 });
    // A full page that reaches the Note's version is the last.
    expect(whole).toMatchObject({ version: before + 3, oldest_version: before + 1, next_since_version: null });
    expect(whole.changes).toHaveLength(3);
    whole.changes.forEach((entry: Record<string, unknown>, i: number) => {
      // Each made after migration 9 too, and nothing later touched it: each can be taken back.
      expect(entry).toEqual({ ...log[i], at: expect.any(String), revertible: true });
      expect(new Date(entry.at as string).toISOString()).toBe(entry.at);
    });

    // In pages of two from a version older than the log's first entry: the entries after the upgrade, each once.
    const first = await changes({ since_version: 0, limit: 2 });
    expect(first.changes.map((c: { version: number }) => c.version)).toEqual([before + 1, before + 2]);
    expect(first.next_since_version).toBe(before + 2);
    const second = await changes({ since_version: first.next_since_version, limit: 2 });
    // A short page is the last.
    expect(second).toMatchObject({ changes: [whole.changes[2]], next_since_version: null });
    expect(await changes({ since_version: 1, limit: 5 })).toEqual({ ...whole });
    const person = await api("GET", `/notes/${noteId}/changes?since_version=0&limit=2`);
    expect(person.status).toBe(200);
    expect(person.body).toEqual(first);

    // A version_conflict lists the changes since; from before the upgrade, some are not in the log.
    const write = (expected: number) => tool("create_note_tab", { note_id: noteId, expected_version: expected, idempotency_key: `late-${expected}`, tab_type: "slides" });
    // A conflict's changes are the log's entries as stored; only a page of the log says which can be taken back.
    const entries = whole.changes.map(({ revertible: _revertible, ...entry }: Record<string, unknown>) => entry);
    const fromUpgrade = await write(before);
    expect(fromUpgrade.data).toMatchObject({ code: "version_conflict", changes: entries, changes_complete: true });
    const fromEarlier = await write(before - 1);
    expect(fromEarlier.data).toMatchObject({ code: "version_conflict", changes: entries, changes_complete: false });

    // The log is the Note's own: it survives a restart, and the next change follows it.
    await restartAfterDelivery();
    const next = await ok("create_note_tab", { note_id: noteId, expected_version: before + 3, idempotency_key: "d", tab_type: "sheet" });
    const after = await changes({ since_version: before + 2 });
    expect(after.changes.map((c: { version: number; operation: string }) => [c.version, c.operation])).toEqual([
      [before + 3, "add_source"],
      [next.version, "create_tab"],
    ]);
  });

  it("migration 10 indexes the content of a Note written before it, queues each member's directory its whole copy, and the next call finds and delivers", async () => {
    const noteId = `migration-10-${Date.now().toString(36)}`;
    const stubOf = () => env.NOTES.get(env.NOTES.idFromName(noteId));
    const stub = stubOf();
    const alice = { user: "alice", channel: "app" } as const;
    const run = async (name: string, input: Record<string, unknown>, caller: { user: string; channel: "app" | "connector" } = alice) => {
      // A new stub each call: one of an aborted object stays broken.
      const result = (await stubOf().execute(noteId, caller, name as never, input as never)) as { ok: boolean; value?: any; error?: unknown };
      if (!result.ok) throw new Error(`${name}: ${JSON.stringify(result.error)}`);
      return result.value;
    };
    await run("create_note", { title: "Old plan", markdown: "# Goals\nGrow in Kyoto" });
    await run("add_member", { user: "bob" });
    await run("set_approval", { approved: true });
    await run("add_tab", { tab_type: "slides", label: "Deck" });
    const note = await run("read_note", {});
    const deck = note.tabs.find((t: { type: string }) => t.type === "slides").id as string;
    await run("set_slides", { tab_id: deck, slides: [{ title: "Pricing", body: "Osaka customers" }] });
    await run("add_tab", { tab_type: "sheet", label: "People" });

    await deliverOwed();
    const upgraded = await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql);
      // The database as schema 9 left it: no index, every directory entry delivered.
      state.storage.transactionSync(() => {
        beforeMigration10(sql);
        sql.run("DELETE FROM outbox");
      });
      state.storage.transactionSync(() => migrate(sql, NOTE_MIGRATIONS));
      const tables = sqliteTables(state.storage.sql);
      return {
        rules: indexRules(tables),
        items: (tables.search ?? []).map((r) => String(r.item)),
        owed: (tables.outbox ?? []).map((r) => ({ user: r.user, entry: JSON.parse(String(r.entry)) as DirectoryEntry })),
      };
    });
    expect(upgraded.rules).toEqual([]);
    expect(upgraded.items).toEqual(expect.arrayContaining(["note", "markdown", deck, "section-0"]));
    expect(upgraded.items.some((item) => String(item).startsWith("slide-"))).toBe(true);
    expect(upgraded.owed.map((o) => o.user)).toEqual(["alice", "bob"]);
    for (const { entry } of upgraded.owed) {
      expect(entry).toMatchObject({ note_id: noteId, title: "Old plan", approved: true, index: { reset: true } });
      expect(entry.index?.put?.map(([key]) => key)).toHaveLength(upgraded.items.length);
    }

    await abortAllDurableObjects();
    const found = await run("search", { query: "osaka" }, { user: "bob", channel: "connector" });
    expect(found.hits).toEqual([expect.objectContaining({ kind: "slide", tab_id: deck, title: "Pricing" })]);
    const after = await runInDurableObject(stubOf(), (_instance, state) => sqliteTables(state.storage.sql));
    // The object started with entries owed: its first call delivered them.
    expect(after.outbox).toEqual([]);
  });

  it("directory migration 2 folds the titles of entries written before it, and a title filter finds them", async () => {
    const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName("directory-migration-2"));
    const rows = await runInDurableObject(stub, (instance, state) => {
      const sql = new Sql(state.storage.sql);
      // The directory as schema 1 left it: no title_folded, no index, migration 2 not applied.
      state.storage.transactionSync(() => {
        sql.run("DROP INDEX notes_approved");
        sql.run("ALTER TABLE notes DROP COLUMN title_folded");
        sql.run("DELETE FROM schema_migrations WHERE version = 2");
        sql.run("INSERT INTO notes (note_id, title, approved, version) VALUES ('n1', 'Große PLÄNE', 1, 3), ('n2', 'Other', 0, 1)");
      });
      state.storage.transactionSync(() => migrate(sql, DIRECTORY_MIGRATIONS));
      return {
        folded: sql.all<{ note_id: string; title_folded: string }>("SELECT note_id, title_folded FROM notes ORDER BY note_id"),
        found: instance.page({ after: "", limit: 10, approvedOnly: false, titleContains: "GROSSE pläne" }).notes,
      };
    });
    expect(rows.folded).toEqual([
      { note_id: "n1", title_folded: "grosse pläne" },
      { note_id: "n2", title_folded: "other" },
    ]);
    expect(rows.found).toEqual([{ note_id: "n1", title: "Große PLÄNE", approved: true }]);
  });
});
