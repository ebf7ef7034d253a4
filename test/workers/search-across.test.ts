/**
 * Search across a user's Notes (docs/search.md, Across Notes): the directory's
 * copy of every member Note's documents, kept by the entries Notes deliver,
 * ranked in one FTS5 query whose cost follows the matches, not the Notes.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/note/commands.js";
import { Note } from "../../src/note/note.js";
import { indexText, matchExpression } from "../../src/note/search/text.js";
import type { DirectoryEntry, DirectoryObject, DirectorySearch } from "../../src/storage/directory-object.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";

function directory(user: string): DurableObjectStub<DirectoryObject> {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName(user));
}

const entry = (note_id: string, version: number, index?: DirectoryEntry["index"], approved = true): DirectoryEntry => ({
  note_id,
  title: `Title of ${note_id}`,
  approved,
  version,
  ...(index === undefined ? {} : { index }),
});

/** What the user's directory finds for `query`: "note_id key" per hit, best first. */
async function found(user: string, query: string, options: Partial<DirectorySearch> = {}): Promise<string[]> {
  const match = matchExpression(query);
  if (match === null) throw new Error(`no words in ${query}`);
  const page = await runInDurableObject(directory(user), (instance) => instance.search({ match, approvedOnly: false, limit: 50, ...options }));
  return page.hits.map((h) => `${h.note_id} ${h.key}`);
}

const doc = (key: number, text: string): [number, string] => [key, indexText(text)];

describe("the directory's copy of its Notes' documents", () => {
  it("puts, replaces and drops documents; a reset drops only its own Note's; a removal drops the Note and its documents", async () => {
    const user = "copy-basics";
    await runInDurableObject(directory(user), (instance) => {
      instance.receive(entry("n1", 1, { reset: true, put: [doc(0, "Quarterly plan"), doc(10, "Pricing slide for Osaka"), doc(18, "Perché no")] }));
      instance.receive(entry("n2", 1, { put: [doc(0, "Osaka trip"), doc(10, "東京都の会議")] }));
    });
    expect(await found(user, "osaka")).toEqual(expect.arrayContaining(["n1 10", "n2 0"]));
    expect(await found(user, "PERCHE")).toEqual(["n1 18"]);
    expect(await found(user, "京都")).toEqual(["n2 10"]);

    // A put under a held key replaces the document; a drop removes it.
    await runInDurableObject(directory(user), (instance) => instance.receive(entry("n1", 2, { drop: [18], put: [doc(10, "Pricing slide for Kyoto")] })));
    expect(await found(user, "osaka")).toEqual(["n2 0"]);
    expect(await found(user, "kyoto")).toEqual(["n1 10"]);
    expect(await found(user, "perche")).toEqual([]);

    // A reset drops every document of its Note first, and no other Note's.
    await runInDurableObject(directory(user), (instance) => instance.receive(entry("n1", 3, { reset: true, put: [doc(0, "Fresh start")] })));
    expect((await found(user, "kyoto plan fresh osaka")).sort()).toEqual(["n1 0", "n2 0"]);
    expect(await found(user, "kyoto plan")).toEqual([]);

    // The Note deleted (or the user removed): its listing and documents go together.
    await runInDurableObject(directory(user), (instance) => instance.receive({ ...entry("n2", 2), removed: true }));
    expect(await found(user, "osaka 京都 東京")).toEqual([]);
    const left = await runInDurableObject(directory(user), (instance) => {
      const sql = (instance as unknown as { sql: Sql }).sql;
      return {
        notes: sql.all<{ note_id: string }>("SELECT note_id FROM notes ORDER BY note_id").map((r) => r.note_id),
        keys: sql.all<{ note_id: string; key: number }>("SELECT note_id, key FROM doc_keys ORDER BY note_id, key"),
      };
    });
    expect(left).toEqual({ notes: ["n1"], keys: [{ note_id: "n1", key: 0 }] });
  });

  it("an older entry than the one held changes neither the listing nor the documents", async () => {
    const user = "copy-older";
    await runInDurableObject(directory(user), (instance) => {
      instance.receive(entry("n1", 5, { put: [doc(10, "current words")] }));
      instance.receive(entry("n1", 4, { reset: true, put: [doc(10, "stale words")] }));
    });
    expect(await found(user, "current")).toEqual(["n1 10"]);
    expect(await found(user, "stale")).toEqual([]);
  });

  it("connectors find approved Notes only; the person finds every Note", async () => {
    const user = "copy-approval";
    await runInDurableObject(directory(user), (instance) => {
      instance.receive(entry("open", 1, { put: [doc(0, "budget open")] }));
      instance.receive(entry("closed", 1, { put: [doc(0, "budget closed")] }, false));
    });
    expect((await found(user, "budget")).sort()).toEqual(["closed 0", "open 0"]);
    expect(await found(user, "budget", { approvedOnly: true })).toEqual(["open 0"]);
    // Approval revoked: the next entry says so, and connectors no longer find it.
    await runInDurableObject(directory(user), (instance) => instance.receive(entry("open", 2, undefined, false)));
    expect(await found(user, "budget", { approvedOnly: true })).toEqual([]);
  });

  it("ranks by bm25 (more and rarer words first) and pages by keyset: every hit once, in order", async () => {
    const user = "copy-paging";
    await runInDurableObject(directory(user), (instance) => {
      for (let n = 0; n < 7; n++) {
        const put = Array.from({ length: 5 }, (_, i) => doc(i * 8 + 2, i === 0 && n === 3 ? "alpha beta gamma" : `alpha filler ${n} ${i}`));
        instance.receive(entry(`p${n}`, 1, { put }));
      }
    });
    expect((await found(user, "alpha gamma"))[0]).toBe("p3 2");
    const all = await found(user, "alpha", { limit: 50 });
    expect(all).toHaveLength(35);
    const paged: string[] = [];
    let after: DirectorySearch["after"];
    for (let pages = 0; pages < 10; pages++) {
      const page = await runInDurableObject(directory(user), (instance) => instance.search({ match: matchExpression("alpha") as string, approvedOnly: false, limit: 8, after }));
      paged.push(...page.hits.map((h) => `${h.note_id} ${h.key}`));
      const last = page.hits.at(-1);
      if (!page.more || last === undefined) break;
      after = { score: last.score, rowid: last.rowid };
    }
    expect(paged).toEqual(all);
  });
});

describe("what a search across Notes costs", () => {
  /** A user with `notes` Notes of 5 documents each; the word "zephyr" in 3 documents of 3 Notes, one of them not approved. */
  async function userWith(notes: number): Promise<string> {
    const user = `cost-${notes}`;
    await runInDurableObject(directory(user), (instance) => {
      for (let n = 0; n < notes; n++) {
        const put = Array.from({ length: 5 }, (_, i) => doc(i * 8 + 2, `Quarterly report ${n} slide ${i} revenue costs${n === 1 && i === 2 ? " zephyr" : ""}${n === 7 && i === 0 ? " zephyr wind" : ""}${n === 5 && i === 4 ? " zephyr" : ""}`));
        instance.receive(entry(`note-${n}`, 1, { reset: true, put: [doc(0, `Report ${n}`), ...put] }, n !== 5));
      }
    });
    return user;
  }

  async function cost(user: string, query: string, approvedOnly: boolean): Promise<{ read: number; hits: string[] }> {
    return runInDurableObject(directory(user), (instance) => {
      const sql = (instance as unknown as { sql: Sql }).sql;
      const before = sql.rowsRead;
      const page = instance.search({ match: matchExpression(query) as string, approvedOnly, limit: 10 });
      return { read: sql.rowsRead - before, hits: page.hits.map((h) => `${h.note_id} ${h.key}`) };
    });
  }

  it("rows read follow the matches, not the number of Notes: the same for 10 and 1,000 Notes", async () => {
    const few = await userWith(10);
    const many = await userWith(1_000);
    const figures: Record<string, [number, number]> = {};
    for (const [query, approvedOnly] of [["zephyr", false], ["zephyr", true], ["zephyr wind", true], ["nowhere", false]] as const) {
      const a = await cost(few, query, approvedOnly);
      const b = await cost(many, query, approvedOnly);
      expect(b.hits).toEqual(a.hits);
      figures[`${query}${approvedOnly ? " (connector)" : ""}`] = [a.read, b.read];
    }
    console.log("directory search rows read, 10 vs 1,000 Notes:", JSON.stringify(figures));
    for (const [name, [a, b]] of Object.entries(figures)) {
      expect({ name, read: b }).toEqual({ name, read: a });
      // Each match: its FTS row (and its rank), its key and its Note's listing; a miss reads 1.
      expect(b).toBeLessThanOrEqual(3 * 4 + 2);
    }
    expect((await cost(many, "zephyr", true)).hits).toEqual(expect.arrayContaining(["note-1 18", "note-7 2"]));
    expect((await cost(many, "zephyr", true)).hits).toHaveLength(2);
  });
});

describe("delivery order", () => {
  it("a failed delivery to a user holds that user's later entries until the retry; other users' go on", async () => {
    const noteId = `order-${crypto.randomUUID()}`;
    const owner: Caller = { user: "order-owner", channel: "app" };
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const seen = await runInDurableObject(stub, async (instance, state) => {
      expect((await instance.execute(noteId, owner, "create_note", { title: "v1" })).ok).toBe(true);
      expect((await instance.execute(noteId, owner, "add_member", { user: "order-member" })).ok).toBe(true);
      // Two renames committed, their entries queued and not yet delivered: four entries, two per member.
      const store = new SqliteNoteStore(new Sql(state.storage.sql), state.storage);
      const note = new Note(noteId, store, { now: Date.now });
      for (const title of ["older", "newer"]) expect(note.execute(owner, "rename_note", { title }).ok).toBe(true);
      expect(store.owedDirectoryEntries()).toHaveLength(4);

      // Directories that record what they take; the owner's first delivery fails, as over a broken link.
      const received: string[] = [];
      let failOnce = true;
      const object = instance as unknown as { env: typeof env };
      const real = object.env;
      const directories = {
        idFromName: (user: string) => user,
        get: (user: string) => ({
          receive: async (entry: DirectoryEntry) => {
            if (user === owner.user && failOnce) {
              failOnce = false;
              throw new Error("directory unreachable");
            }
            received.push(`${user} ${entry.title}`);
            await real.DIRECTORY.get(real.DIRECTORY.idFromName(user)).receive(entry);
          },
        }),
      };
      object.env = { ...real, DIRECTORY: directories as unknown as typeof env.DIRECTORY };
      try {
        await instance.alarm();
        const first = { received: [...received], owed: store.owedDirectoryEntries().map((o) => `${o.user} ${o.entry.title}`), alarm: await state.storage.getAlarm() };
        received.length = 0;
        await instance.alarm();
        return { first, retry: received, owed: store.owedDirectoryEntries().length };
      } finally {
        object.env = real;
      }
    });
    expect(seen.first).toEqual({
      received: ["order-member older", "order-member newer"],
      owed: ["order-owner older", "order-owner newer"],
      alarm: expect.any(Number),
    });
    expect(seen.retry).toEqual(["order-owner older", "order-owner newer"]);
    expect(seen.owed).toBe(0);
    const titles = await Promise.all(
      ["order-owner", "order-member"].map((user) => runInDurableObject(directory(user), (d) => d.page({ after: "", limit: 10, approvedOnly: false }).notes.map((n) => n.title))),
    );
    expect(titles).toEqual([["newer"], ["newer"]]);
  });
});
