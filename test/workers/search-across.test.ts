/**
 * Search across a user's Notes (docs/search.md, Across Notes): the directory's
 * copy of every member Note's documents, kept by the entries Notes deliver in
 * order, ranked in one FTS5 query whose cost follows the matches, not the
 * Notes; the gateway's search through the real objects (who finds what,
 * pages, refusals, membership and deletion at once, staleness, Notes from
 * before the copy).
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { searchNotes } from "../../src/http/gateway.js";
import type { Caller, CommandName, Input, Output } from "../../src/note/commands.js";
import type { Result } from "../../src/note/result.js";
import { Note } from "../../src/note/note.js";
import { indexText, matchExpression } from "../../src/note/search/text.js";
import type { DirectoryEntry, DirectoryObject, DirectorySearch } from "../../src/storage/directory-object.js";
import { Sql } from "../../src/storage/sql.js";
import { SqliteNoteStore } from "../../src/storage/sqlite-note-store.js";
import { deliverOwed } from "../support/restart.js";

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
      instance.receiveAll([entry("n1", 1, { reset: true, put: [doc(0, "Quarterly plan"), doc(10, "Pricing slide for Osaka"), doc(18, "Perché no")] })]);
      instance.receiveAll([entry("n2", 1, { put: [doc(0, "Osaka trip"), doc(10, "東京都の会議")] })]);
    });
    expect(await found(user, "osaka")).toEqual(expect.arrayContaining(["n1 10", "n2 0"]));
    expect(await found(user, "PERCHE")).toEqual(["n1 18"]);
    expect(await found(user, "京都")).toEqual(["n2 10"]);

    // A put under a held key replaces the document; a drop removes it.
    await runInDurableObject(directory(user), (instance) => instance.receiveAll([entry("n1", 2, { drop: [18], put: [doc(10, "Pricing slide for Kyoto")] })]));
    expect(await found(user, "osaka")).toEqual(["n2 0"]);
    expect(await found(user, "kyoto")).toEqual(["n1 10"]);
    expect(await found(user, "perche")).toEqual([]);

    // A reset drops every document of its Note first, and no other Note's.
    await runInDurableObject(directory(user), (instance) => instance.receiveAll([entry("n1", 3, { reset: true, put: [doc(0, "Fresh start")] })]));
    expect((await found(user, "kyoto plan fresh osaka")).sort()).toEqual(["n1 0", "n2 0"]);
    expect(await found(user, "kyoto plan")).toEqual([]);

    // The Note deleted (or the user removed): its listing and documents go together.
    await runInDurableObject(directory(user), (instance) => instance.receiveAll([{ ...entry("n2", 2), removed: true }]));
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
      instance.receiveAll([entry("n1", 5, { put: [doc(10, "current words")] })]);
      instance.receiveAll([entry("n1", 4, { reset: true, put: [doc(10, "stale words")] })]);
    });
    expect(await found(user, "current")).toEqual(["n1 10"]);
    expect(await found(user, "stale")).toEqual([]);
  });

  it("connectors find approved Notes only; the person finds every Note", async () => {
    const user = "copy-approval";
    await runInDurableObject(directory(user), (instance) => {
      instance.receiveAll([entry("open", 1, { put: [doc(0, "budget open")] })]);
      instance.receiveAll([entry("closed", 1, { put: [doc(0, "budget closed")] }, false)]);
    });
    expect((await found(user, "budget")).sort()).toEqual(["closed 0", "open 0"]);
    expect(await found(user, "budget", { approvedOnly: true })).toEqual(["open 0"]);
    // Approval revoked: the next entry says so, and connectors no longer find it.
    await runInDurableObject(directory(user), (instance) => instance.receiveAll([entry("open", 2, undefined, false)]));
    expect(await found(user, "budget", { approvedOnly: true })).toEqual([]);
  });

  it("ranks by bm25 (more and rarer words first) and pages by keyset: every hit once, in order", async () => {
    const user = "copy-paging";
    await runInDurableObject(directory(user), (instance) => {
      for (let n = 0; n < 7; n++) {
        const put = Array.from({ length: 5 }, (_, i) => doc(i * 8 + 2, i === 0 && n === 3 ? "alpha beta gamma" : `alpha filler ${n} ${i}`));
        instance.receiveAll([entry(`p${n}`, 1, { put })]);
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
  /** A user with `notes` Notes of 4 documents each; the word "zephyr" in 3 documents of 3 Notes, one of them not approved. */
  async function userWith(notes: number): Promise<string> {
    const user = `cost-${notes}`;
    await runInDurableObject(directory(user), (instance) => {
      for (let n = 0; n < notes; n++) {
        const put = Array.from({ length: 3 }, (_, i) => doc(i * 8 + 2, `Quarterly report ${n} slide ${i} revenue costs${n === 1 && i === 2 ? " zephyr" : ""}${n === 7 && i === 0 ? " zephyr wind" : ""}${n === 5 && i === 1 ? " zephyr" : ""}`));
        instance.receiveAll([entry(`note-${n}`, 1, { reset: true, put: [doc(0, `Report ${n}`), ...put] }, n !== 5)]);
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
    const size = (user: string) => runInDurableObject(directory(user), (_instance, state) => state.storage.sql.databaseSize);
    console.log(`directory database: 10 Notes (40 documents) ${await size(few)} bytes, 1,000 Notes (4,000 documents) ${await size(many)} bytes`);
    for (const [name, [a, b]] of Object.entries(figures)) {
      expect({ name, read: b }).toEqual({ name, read: a });
      // Each match: its FTS row (and its rank), its key and its Note's listing; a miss reads 2 (the list of pending copies, empty, and the FTS probe).
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
          receiveAll: async (entries: DirectoryEntry[]) => {
            if (user === owner.user && failOnce) {
              failOnce = false;
              throw new Error("directory unreachable");
            }
            for (const entry of entries) received.push(`${user} ${entry.title}`);
            await real.DIRECTORY.get(real.DIRECTORY.idFromName(user)).receiveAll(entries);
          },
        }),
      };
      object.env = { ...real, DIRECTORY: directories as unknown as typeof env.DIRECTORY };
      // The failure's log line, expected here.
      const logged = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        await instance.alarm();
        const first = { received: [...received], owed: store.owedDirectoryEntries().map((o) => `${o.user} ${o.entry.title}`), alarm: await state.storage.getAlarm() };
        received.length = 0;
        await instance.alarm();
        return { first, retry: received, owed: store.owedDirectoryEntries().length, logged: logged.mock.calls.length };
      } finally {
        object.env = real;
        logged.mockRestore();
      }
    });
    expect(seen.first).toEqual({
      received: ["order-member older", "order-member newer"],
      owed: ["order-owner older", "order-owner newer"],
      alarm: expect.any(Number),
    });
    expect(seen.retry).toEqual(["order-owner older", "order-owner newer"]);
    expect(seen.owed).toBe(0);
    expect(seen.logged).toBe(1);
    const titles = await Promise.all(
      ["order-owner", "order-member"].map((user) => runInDurableObject(directory(user), (d) => d.page({ after: "", limit: 10, approvedOnly: false }).notes.map((n) => n.title))),
    );
    expect(titles).toEqual([["newer"], ["newer"]]);
  });
});

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));

/** The Notes this file wrote to: their search documents reach the directories when their alarms ring (SEARCH_DELIVERY_MS). */
const written = new Set<string>();

/** Rings every written Note's alarm now: what their writes queued for the directories is delivered. */
async function delivered(): Promise<void> {
  for (const noteId of written) await runDurableObjectAlarm(stubOf(noteId));
  written.clear();
}

async function value<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Output<K>> {
  written.add(noteId);
  const result = (await stubOf(noteId).execute(noteId, caller, name, input)) as Result<Output<K>>;
  if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
  return result.value;
}

const app = (user: string): Caller => ({ user, channel: "app" });
const agent = (user: string): Caller => ({ user, channel: "connector" });

/** A Note of `owner`'s through its object (every entry delivered as in production), with one deck of these slides; approved unless told. */
async function deck(owner: string, title: string, slides: { title: string; body?: string }[], approved = true) {
  const noteId = `across-${crypto.randomUUID()}`;
  let { version } = await value(noteId, app(owner), "create_note", { title });
  if (approved) version = (await value(noteId, app(owner), "set_approval", { approved: true })).version;
  const out = await value(noteId, app(owner), "create_tab", { expected_version: version, idempotency_key: "deck", tab_type: "slides", slides });
  if (!("slide_ids" in out)) throw new Error("not a deck");
  return { noteId, tabId: out.tab_id, slideIds: out.slide_ids, version: out.version };
}

/** A search across the caller's Notes, through the gateway; the hits as "note_id slide_id" (or the kind), or the error. */
async function across(caller: Caller, query: string, extra: { limit?: number; cursor?: string } = {}, settle = true) {
  if (settle) await delivered();
  const page = await searchNotes(env, caller, { query, ...extra });
  if (!page.ok) return { error: page.error };
  return { hits: page.value.hits.map((h) => `${h.note_id} ${h.slide_id ?? h.kind}`), page: page.value };
}

describe("search across Notes through the gateway", () => {
  it("finds the caller's Notes only, a connector's approved ones only, with fresh titles and snippets, in rank order", async () => {
    const a = await deck("gw-alice", "Osaka trip", [{ title: "Pricing in Osaka", body: "the kansai pricing review" }, { title: "Agenda", body: "nothing here" }]);
    const b = await deck("gw-alice", "Sales", [{ title: "Quarterly", body: "pricing for osaka and kyoto customers" }]);
    const hidden = await deck("gw-alice", "Draft", [{ title: "Unapproved", body: "osaka pricing secret" }], false);
    const other = await deck("gw-bob", "Bob's", [{ title: "Bob", body: "osaka pricing of bob" }]);

    const agentHits = await across(agent("gw-alice"), "osaka pricing");
    expect(agentHits.hits).toEqual(expect.arrayContaining([`${a.noteId} ${a.slideIds[0]}`, `${b.noteId} ${b.slideIds[0]}`]));
    // The Note's title holds "osaka" too: its own hit. Never the unapproved Note's, never bob's.
    expect(agentHits.hits).toContain(`${a.noteId} note`);
    expect(agentHits.hits?.some((h) => h.startsWith(hidden.noteId) || h.startsWith(other.noteId))).toBe(false);
    // Both words in one slide rank it before the title's one word.
    expect(agentHits.hits?.indexOf(`${a.noteId} ${a.slideIds[0]}`)).toBeLessThan(agentHits.hits?.indexOf(`${a.noteId} note`) as number);
    const slide = agentHits.page?.hits.find((h) => h.slide_id === a.slideIds[0]);
    expect(slide).toMatchObject({ note_id: a.noteId, tab_id: a.tabId, kind: "slide", title: "Pricing in Osaka", note_title: "Osaka trip", snippet: expect.stringContaining("pricing") });
    expect(slide).not.toHaveProperty("key");

    // The person finds the unapproved Note too; bob finds his own only.
    expect((await across(app("gw-alice"), "secret")).hits).toEqual([`${hidden.noteId} ${hidden.slideIds[0]}`]);
    expect((await across(agent("gw-alice"), "secret")).hits).toEqual([]);
    expect((await across(agent("gw-bob"), "osaka")).hits).toEqual([`${other.noteId} ${other.slideIds[0]}`]);

    // A renamed Note: the next search shows its new title (the Note describes its hits now).
    await value(a.noteId, app("gw-alice"), "rename_note", { title: "Kansai trip" });
    const renamed = await across(agent("gw-alice"), "kansai");
    expect(renamed.page?.hits.map((h) => [h.kind, h.note_title])).toEqual(expect.arrayContaining([["note", "Kansai trip"], ["slide", "Kansai trip"]]));
  });

  it("pages by cursor: every hit once; a cursor of another user or query and a query with no word are invalid_arguments naming the field", async () => {
    const d = await deck(
      "gw-pager",
      "Pager",
      Array.from({ length: 7 }, (_, i) => ({ title: `Slide ${i}`, body: `walrus ${"walrus ".repeat(i)}` })),
    );
    const all = await across(agent("gw-pager"), "walrus", { limit: 50 });
    expect(all.hits).toHaveLength(7);
    const paged: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await across(agent("gw-pager"), "walrus", { limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      paged.push(...(page.hits ?? []));
      if (page.page?.next_cursor == null) break;
      cursor = page.page.next_cursor;
    }
    expect(paged).toEqual(all.hits);
    const first = await across(agent("gw-pager"), "walrus", { limit: 3 });
    const issued = first.page?.next_cursor as string;
    expect((await across(agent("gw-bob"), "walrus", { cursor: issued })).error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "cursor" }] });
    expect((await across(agent("gw-pager"), "pricing", { cursor: issued })).error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "cursor" }] });
    for (const query of ["", "   ", "!!! ?? --", `"*" ( ^ - : )`, "x".repeat(5_000), "\ud800 lone"]) {
      expect({ query: query.slice(0, 20), error: (await across(agent("gw-pager"), query)).error }).toMatchObject({ error: { code: "invalid_arguments", issues: [{ path: "query" }] } });
    }
    expect((await across(agent("gw-pager"), "walrus", { limit: 0 })).error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "limit" }] });
    // FTS5's syntax around a word is text: the word is found.
    expect((await across(agent("gw-pager"), `walrus* OR "NEAR(walrus" col:walrus`)).hits).toHaveLength(7);
    // The gateway and the Note word a query's problems alike.
    for (const query of ["   ", "!!!", "\ud800"]) {
      const own = await stubOf(d.noteId).execute(d.noteId, agent("gw-pager"), "search", { query });
      expect(await searchNotes(env, agent("gw-pager"), { query })).toEqual(own);
    }
    // With note_id: that Note's own search.
    expect((await searchNotes(env, agent("gw-pager"), { query: "walrus", note_id: d.noteId, limit: 2 })).ok).toBe(true);
  });
});

/** What `user`'s directory holds of the Note: its listing and its documents' keys (read straight from its tables). */
async function held(user: string, noteId: string): Promise<{ listed: boolean; docs: number }> {
  return runInDurableObject(directory(user), (instance) => {
    const sql = (instance as unknown as { sql: Sql }).sql;
    return {
      listed: sql.first("SELECT 1 FROM notes WHERE note_id = ?", noteId) !== null,
      docs: (sql.first<{ n: number }>("SELECT count(*) AS n FROM doc_keys WHERE note_id = ?", noteId) as { n: number }).n,
    };
  });
}

/** Runs one operation of the Note's rules in its object and commits it, without delivering what it queued: as when the directories are unreachable. */
async function undelivered<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<void> {
  await runInDurableObject(stubOf(noteId), (_instance, state) => {
    const result = new Note(noteId, new SqliteNoteStore(new Sql(state.storage.sql), state.storage), { now: Date.now }).execute(caller, name, input);
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
  });
}

describe("membership and deletion", () => {
  it("a new member's directory receives the whole Note in entries of at most 200 KB of text, the first a reset: they find it at once", async () => {
    const d = await deck("mb-owner", "Big", [{ title: "Harbour", body: "the lighthouse slide" }]);
    // Markdown of about 300,000 characters: more than one entry's worth of documents.
    const markdown = Array.from({ length: 600 }, (_, i) => `# Part ${i}\n\n${`paragraph ${i} words `.repeat(24)}${i === 599 ? "zanzibar" : ""}`).join("\n\n");
    await value(d.noteId, app("mb-owner"), "set_markdown", { text: markdown });
    const entries = await runInDurableObject(stubOf(d.noteId), async (instance) => {
      const seen: DirectoryEntry[] = [];
      const object = instance as unknown as { env: typeof env };
      const real = object.env;
      const directories = {
        idFromName: (user: string) => user,
        get: (user: string) => ({
          receiveAll: async (entries: DirectoryEntry[]) => {
            if (user === "mb-member") seen.push(...entries);
            await real.DIRECTORY.get(real.DIRECTORY.idFromName(user)).receiveAll(entries);
          },
        }),
      };
      object.env = { ...real, DIRECTORY: directories as unknown as typeof env.DIRECTORY };
      try {
        const added = await instance.execute(d.noteId, app("mb-owner"), "add_member", { user: "mb-member" });
        expect(added.ok).toBe(true);
      } finally {
        object.env = real;
      }
      return seen;
    });
    const copies = entries.filter((e) => e.index !== undefined);
    expect(copies.length).toBeGreaterThan(1);
    expect(copies[0]?.index?.reset).toBe(true);
    expect(copies.slice(1).every((e) => e.index?.reset === undefined)).toBe(true);
    for (const e of copies) expect((e.index?.put ?? []).reduce((n, [, text]) => n + text.length, 0)).toBeLessThanOrEqual(200_000);
    const text = copies.reduce((n, e) => n + (e.index?.put ?? []).reduce((m, [, t]) => m + t.length, 0), 0);
    const bytes = await runInDurableObject(directory("mb-member"), (_instance, state) => state.storage.sql.databaseSize);
    console.log(`a new member's copy: ${copies.length} entries, ${text} characters of indexed text; their directory database ${bytes} bytes`);
    expect((await across(agent("mb-member"), "zanzibar")).page?.hits.map((h) => h.kind)).toEqual(["markdown"]);
    expect((await across(agent("mb-member"), "lighthouse")).hits).toEqual([`${d.noteId} ${d.slideIds[0]}`]);
  });

  it("a removed member finds nothing of the Note at once, before their directory learns it; then their directory drops it", async () => {
    const d = await deck("rm-owner", "Shared", [{ title: "Plan", body: "the narwhal plan" }]);
    await value(d.noteId, app("rm-owner"), "add_member", { user: "rm-member" });
    expect((await across(agent("rm-member"), "narwhal")).hits).toEqual([`${d.noteId} ${d.slideIds[0]}`]);

    await undelivered(d.noteId, app("rm-owner"), "remove_member", { user: "rm-member" });
    // Their directory still holds the Note's documents: the Note's own check answers first.
    expect(await held("rm-member", d.noteId)).toMatchObject({ listed: true });
    expect((await held("rm-member", d.noteId)).docs).toBeGreaterThan(0);
    expect((await across(agent("rm-member"), "narwhal")).hits).toEqual([]);
    expect((await across(app("rm-member"), "narwhal")).hits).toEqual([]);
    expect((await across(agent("rm-owner"), "narwhal")).hits).toEqual([`${d.noteId} ${d.slideIds[0]}`]);

    await runInDurableObject(stubOf(d.noteId), (instance) => instance.alarm());
    expect(await held("rm-member", d.noteId)).toEqual({ listed: false, docs: 0 });
    expect((await held("rm-owner", d.noteId)).docs).toBeGreaterThan(0);
  });

  it("a deleted Note is found by no member at once; then every member's directory drops it", async () => {
    const d = await deck("del-owner", "Doomed", [{ title: "Plan", body: "the okapi plan" }]);
    await value(d.noteId, app("del-owner"), "add_member", { user: "del-member" });
    expect((await across(agent("del-member"), "okapi")).hits).toEqual([`${d.noteId} ${d.slideIds[0]}`]);

    await undelivered(d.noteId, app("del-owner"), "delete_note", {});
    for (const user of ["del-owner", "del-member"]) {
      expect((await held(user, d.noteId)).docs).toBeGreaterThan(0);
      expect((await across(agent(user), "okapi")).hits).toEqual([]);
      expect((await across(app(user), "okapi plan")).hits).toEqual([]);
    }

    await runInDurableObject(stubOf(d.noteId), (instance) => instance.alarm());
    for (const user of ["del-owner", "del-member"]) expect(await held(user, d.noteId)).toEqual({ listed: false, docs: 0 });
  });
});

describe("how stale a search across Notes is", () => {
  /** Writes measured; docs/search.md's figures are from a run of 200 (this test with WRITES = 200). */
  const WRITES = 10;

  it("a write is found across Notes soon after its answer: its documents go when the Note's alarm rings, a moment later", async () => {
    const d = await deck("stale-user", "Staleness", [{ title: "Moving target", body: "nothing yet" }]);
    await delivered();
    const delays: number[] = [];
    const tries: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const word = `marker${i}q${Date.now().toString(36)}`;
      await value(d.noteId, app("stale-user"), "change_tab", { tab_id: d.tabId, operation: "slide_update", slide_id: d.slideIds[0] as string, body: `now ${word}` });
      const acknowledged = performance.now();
      let attempt = 0;
      for (;;) {
        attempt += 1;
        const found = await across(agent("stale-user"), word, {}, false);
        if (found.hits?.length === 1 || attempt === 300) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      delays.push(performance.now() - acknowledged);
      tries.push(attempt);
    }
    const sorted = [...delays].sort((a, b) => a - b);
    const at = (p: number) => (sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number).toFixed(1);
    console.log(`staleness over ${WRITES} writes: found at the first search ${tries.filter((t) => t === 1).length}/${WRITES}; ack to found p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
    // Each found, by the alarm alone (no test rang it), within the 300 tries' few seconds.
    expect(tries.every((t) => t < 300)).toBe(true);
  });
});

describe("Notes written before the search copy existed", () => {
  it("a search asks the Notes the directory has no copy of for theirs, and finds them; the list of them empties", async () => {
    const d = await deck("up-owner", "Old", [{ title: "Plan", body: "the quokka plan" }]);
    // The Note as it was before its migration 10 (no index, nothing owed), the directory before its migration 3.
    await deliverOwed();
    await runInDurableObject(stubOf(d.noteId), (_instance, state) =>
      state.storage.transactionSync(() => {
        state.storage.sql.exec("DROP TABLE search");
        state.storage.sql.exec("DELETE FROM schema_migrations WHERE version = 10");
      }),
    );
    await runInDurableObject(directory("up-owner"), (_instance, state) =>
      state.storage.transactionSync(() => {
        for (const table of ["docs", "doc_keys", "copy_pending"]) state.storage.sql.exec(`DROP TABLE ${table}`);
        state.storage.sql.exec("DELETE FROM schema_migrations WHERE version = 3");
      }),
    );
    // Both start again, on the new code: the Note's migration queues each member's copy, the directory lists the Note as pending.
    await abortAllDurableObjects();
    expect(await runInDurableObject(directory("up-owner"), (_instance, state) => state.storage.sql.exec("SELECT note_id FROM copy_pending").toArray())).toEqual([{ note_id: d.noteId }]);

    expect((await across(agent("up-owner"), "quokka")).hits).toEqual([`${d.noteId} ${d.slideIds[0]}`]);
    expect(await runInDurableObject(directory("up-owner"), (_instance, state) => state.storage.sql.exec("SELECT note_id FROM copy_pending").toArray())).toEqual([]);
    expect((await held("up-owner", d.noteId)).docs).toBeGreaterThan(0);
  });
});
