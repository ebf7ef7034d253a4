/**
 * list_notes and GET /api/v1/notes on a user with thousands of Notes: pages
 * of at most 100 through the real directory object, a title fragment found in
 * one call, cursors that stay put under inserts, and what a page costs.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { signIn } from "../../scripts/lib/sign-in.js";
import { encodeNotesCursor } from "../../src/note/cursor.js";
import type { DirectoryObject } from "../../src/storage/directory-object.js";
import type { Sql } from "../../src/storage/sql.js";
import { api, failure, newNote, ok, personApi, signInAs, TOKENS, tool, workerFetch } from "../support/workers.js";

/** A user of this file alone, with 2,000 Notes in the directory. */
const MANY = "many-notes";
const tokens = { agent: "", app: "" };
const COUNT = 2_000;
const id = (i: number) => `n-${String(i).padStart(4, "0")}`;
/** Every seventh Note is not approved: connectors never see it, the person does. */
const approved = (i: number) => i % 7 !== 3;
const SPECIAL = 1234;
const SPECIAL_TITLE = "Q3 Budget – Straße 100%_done";

function directory(user: string): DurableObjectStub<DirectoryObject> {
  return env.DIRECTORY.get(env.DIRECTORY.idFromName(user));
}

beforeAll(async () => {
  await signInAs("app", "bobAgent");
  const sign = async (scopes: string[], resource: "mcp" | "api") =>
    (await signIn({ origin: "http://127.0.0.1:8787", user: MANY, scopes, resource, fetch: (request) => workerFetch(request) })).access_token;
  tokens.agent = await sign(["osfoundry:read", "osfoundry:write"], "mcp");
  tokens.app = await sign(["osfoundry:app"], "api");
  // Seeded in the directory itself, through its own receive (what a Note's outbox delivers), in a shuffled order:
  // creating 2,000 Notes through the API takes minutes in the test runtime. A few real Notes below take the real path.
  const order = Array.from({ length: COUNT }, (_, i) => i).sort((a, b) => ((a * 7919) % COUNT) - ((b * 7919) % COUNT));
  await runInDurableObject(directory(MANY), (instance) => {
    for (const i of order) instance.receiveAll([{ note_id: id(i), title: i === SPECIAL ? SPECIAL_TITLE : `Report ${i}`, approved: approved(i), version: 2 }]);
  });
});

/** Every page of list_notes (MCP) or GET /notes (the person's API) from the start; the pages' Note IDs. */
async function walk(how: "mcp" | "api", limit?: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | null | undefined;
  do {
    let page: { notes: { note_id: string }[]; next_cursor: string | null };
    if (how === "mcp") {
      page = await ok("list_notes", { ...(limit === undefined ? {} : { limit }), ...(cursor == null ? {} : { cursor }) }, tokens.agent);
    } else {
      const query = new URLSearchParams({ ...(limit === undefined ? {} : { limit: String(limit) }), ...(cursor == null ? {} : { cursor }) });
      const answer = await api("GET", `/notes?${query}`, undefined, tokens.app);
      expect(answer.status).toBe(200);
      page = answer.body;
    }
    pages.push(page.notes.map((n) => n.note_id));
    cursor = page.next_cursor;
  } while (cursor !== null && pages.length < 100);
  return pages;
}

describe("a user with 2,000 Notes", () => {
  it("an agent lists every approved Note in pages of at most 100: each once, in order", async () => {
    const pages = await walk("mcp");
    const ids = pages.flat();
    const expected = Array.from({ length: COUNT }, (_, i) => i).filter(approved).map(id);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.every((p) => p.length <= 100)).toBe(true);
    expect(pages).toHaveLength(Math.ceil(expected.length / 100));
  });

  it("the person lists every Note, approved or not, in pages of the size asked for", async () => {
    const pages = await walk("api", 73);
    expect(pages.flat()).toEqual(Array.from({ length: COUNT }, (_, i) => id(i)));
    expect(pages.slice(0, -1).every((p) => p.length === 73)).toBe(true);
    const first = await api("GET", "/notes?limit=2", undefined, tokens.app);
    expect(first.body.notes).toEqual([
      { note_id: id(0), title: "Report 0", approved: true },
      { note_id: id(1), title: "Report 1", approved: true },
    ]);
  });

  it("finds a Note by a fragment of its title in one call, whatever its case and however the title spells it", async () => {
    for (const fragment of ["budget", "BUDGET", "q3 bud", "STRASSE", "straße", "100%_done", "%", "_", "–"]) {
      const found = await ok("list_notes", { title_contains: fragment }, tokens.agent);
      expect({ fragment, found }).toEqual({ fragment, found: { notes: [{ note_id: id(SPECIAL), title: SPECIAL_TITLE }], next_cursor: null } });
    }
    // '%' and '_' match themselves, not any text: no other title has them.
    expect((await ok("list_notes", { title_contains: "Report 1_" }, tokens.agent)).notes).toEqual([]);
    expect((await ok("list_notes", { title_contains: "Report%" }, tokens.agent)).notes).toEqual([]);
    const person = await api("GET", `/notes?title_contains=${encodeURIComponent("STRASSE 100%")}`, undefined, tokens.app);
    expect(person.body).toEqual({ notes: [{ note_id: id(SPECIAL), title: SPECIAL_TITLE, approved: true }], next_cursor: null });
  });

  it("a filter pages too: 'Report 1' matches 1 and 1000–1999 and 10–19 and 100–199 (minus the special one)", async () => {
    const matches = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i !== SPECIAL && `Report ${i}`.includes("Report 1"));
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { notes: { note_id: string }[]; next_cursor: string | null } = await api(
        "GET",
        `/notes?title_contains=report%201&limit=100${cursor === null ? "" : `&cursor=${cursor}`}`,
        undefined,
        tokens.app,
      ).then((a) => a.body);
      pages.push(...page.notes.map((n) => n.note_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pages).toEqual(matches.map(id));
  });

  it("a cursor stays put when Notes are added between pages: none is listed twice, none after the cursor is skipped", async () => {
    const user = "paging-under-inserts";
    await runInDurableObject(directory(user), (instance) => {
      for (let i = 0; i < 10; i += 2) instance.receiveAll([{ note_id: id(i), title: `T${i}`, approved: true, version: 1 }]);
    });
    const first = await runInDurableObject(directory(user), (instance) => instance.page({ after: "", limit: 2, approvedOnly: true }));
    expect(first.notes.map((n) => n.note_id)).toEqual([id(0), id(2)]);
    await runInDurableObject(directory(user), (instance) => {
      instance.receiveAll([{ note_id: id(1), title: "before the cursor", approved: true, version: 1 }]);
      instance.receiveAll([{ note_id: id(3), title: "after the cursor", approved: true, version: 1 }]);
    });
    const rest = await runInDurableObject(directory(user), (instance) => instance.page({ after: id(2), limit: 100, approvedOnly: true }));
    expect(rest).toEqual({ notes: [id(3), id(4), id(6), id(8)].map((note_id) => expect.objectContaining({ note_id })), more: false });
  });

  it("a page reads the rows it returns (and one more), not the directory: at the start, deep in it, and for connectors", async () => {
    const cost = (query: Parameters<DirectoryObject["page"]>[0]) =>
      runInDurableObject(directory(MANY), (instance) => {
        const sql = (instance as unknown as { sql: Sql }).sql;
        const before = sql.rowsRead;
        const page = instance.page(query);
        return { read: sql.rowsRead - before, count: page.notes.length };
      });
    const first = await cost({ after: "", limit: 100, approvedOnly: false });
    const deep = await cost({ after: id(1800), limit: 100, approvedOnly: false });
    const connector = await cost({ after: id(900), limit: 100, approvedOnly: true });
    expect([first.count, deep.count, connector.count]).toEqual([100, 100, 100]);
    for (const { read } of [first, deep, connector]) expect(read).toBeLessThanOrEqual(102);
  });
});

describe("list_notes on Notes made the real way", () => {
  it("shows a renamed Note's new title, finds it by that title, and no longer by the old one", async () => {
    const client = personApi();
    const a = await newNote({ title: "Garden plan" });
    const b = await newNote({ title: "Kitchen plan" });
    const hidden = await newNote({ title: "Garden secrets", approved: false });
    const renamed = await client.request("PATCH", `/notes/${a.noteId}`, { title: "  Orchard plan  ", expected_version: a.version });
    expect(renamed).toEqual({ status: 200, body: { note_id: a.noteId, version: a.version + 1 } });

    const listed = async (title_contains: string) => (await ok("list_notes", { title_contains })).notes.filter((n: { note_id: string }) => [a, b, hidden].some((x) => x.noteId === n.note_id));
    expect(await listed("orchard")).toEqual([{ note_id: a.noteId, title: "Orchard plan" }]);
    expect(await listed("Garden")).toEqual([]);
    expect((await listed("plan")).map((n: { note_id: string }) => n.note_id).sort()).toEqual([a.noteId, b.noteId].sort());
    const person = await api("GET", `/notes?title_contains=garden`);
    expect(person.body.notes.filter((n: { note_id: string }) => n.note_id === hidden.noteId)).toEqual([{ note_id: hidden.noteId, title: "Garden secrets", approved: false }]);
    // The Note's own view agrees, and a rename to the same title changes nothing.
    expect((await ok("list_note_tabs", { note_id: a.noteId })).title).toBe("Orchard plan");
    expect(await client.request("PATCH", `/notes/${a.noteId}`, { title: "Orchard plan" })).toEqual({ status: 200, body: { note_id: a.noteId, version: a.version + 1 } });
  });

  it("a stale rename is a version_conflict and changes nothing", async () => {
    const { noteId, version } = await newNote({ title: "Stale" });
    const answer = await personApi().renameNote(noteId, { title: "New", expected_version: version - 1 });
    expect(answer).toMatchObject({ ok: false, status: 409, error: { code: "version_conflict", current_version: version } });
    expect((await ok("list_note_tabs", { note_id: noteId })).title).toBe("Stale");
  });
});

describe("bad input to list_notes, GET /notes and PATCH /notes/:id", () => {
  it("the tool refuses a limit out of range, a title_contains that is no text or empty, and a cursor it did not issue, naming the field", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ limit: 0 }, "limit", "at least 1"],
      [{ limit: 101 }, "limit", "at most 100"],
      [{ limit: 2.5 }, "limit", "must be a whole number"],
      [{ title_contains: 7 }, "title_contains", "expected string"],
      [{ title_contains: "" }, "title_contains", "must not be empty"],
      [{ cursor: "bm90LWEtY3Vyc29y" }, "cursor", "not a cursor list_notes issued to you"],
      [{ cursor: encodeNotesCursor("bob", id(5)) }, "cursor", "not a cursor list_notes issued to you"],
      [{ cursor: "" }, "cursor", "must not be empty"],
      [{ other: 1 }, "other", "unexpected field"],
    ];
    for (const [args, path, problem] of cases) {
      const error = await failure("list_notes", args);
      expect({ args, code: error.code, issues: error.issues }).toEqual({ args, code: "invalid_arguments", issues: [{ path, problem: expect.stringContaining(problem) }] });
    }
  });

  it("a cursor issued to one user is refused to another; one issued to the caller is taken", async () => {
    expect((await tool("list_notes", { cursor: encodeNotesCursor("alice", id(5)), limit: 1 })).isError).toBe(false);
    expect((await tool("list_notes", { cursor: encodeNotesCursor("alice", id(5)) }, TOKENS.bobAgent)).isError).toBe(true);
  });

  it("the person's API answers 400 naming the parameter", async () => {
    const cases: [string, string, string][] = [
      ["limit=0", "limit", "at least 1"],
      ["limit=101", "limit", "at most 100"],
      ["limit=abc", "limit", "must be a whole number"],
      ["title_contains=", "title_contains", "must not be empty"],
      ["cursor=nope", "cursor", "not a cursor GET /api/v1/notes issued to you"],
      ["kind=sources", "kind", "unexpected field"],
    ];
    for (const [query, path, problem] of cases) {
      const answer = await api("GET", `/notes?${query}`);
      expect({ query, status: answer.status, issues: answer.body.error?.issues }).toEqual({ query, status: 400, issues: [{ path, problem: expect.stringContaining(problem) }] });
    }
  });

  it("a rename needs a title: empty, blank, missing, too long or not text are refused and change nothing", async () => {
    const { noteId, version } = await newNote({ title: "Keep" });
    const cases: [unknown, string, string][] = [
      [{ title: "" }, "title", "must not be empty"],
      [{ title: "   " }, "title", "blank"],
      [{}, "title", "required"],
      [{ title: "x".repeat(201) }, "title", "at most 200"],
      [{ title: 5 }, "title", "expected string"],
      [{ title: "ok", approved: true }, "approved", "unexpected field"],
    ];
    for (const [body, path, problem] of cases) {
      const answer = await api("PATCH", `/notes/${noteId}`, body);
      expect({ body, status: answer.status, issues: answer.body.error?.issues }).toEqual({ body, status: 400, issues: [{ path, problem: expect.stringContaining(problem) }] });
    }
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
  });
});
