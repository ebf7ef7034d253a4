/**
 * Issue 26, acceptance 3, at the edge: hostile queries and hit IDs through the
 * Worker's MCP endpoint (and the person's GET /api/v1/search). FTS5's syntax
 * is text; an empty, blank, too long or ill-formed query, a wrong type, a
 * limit out of range and a forged cursor are each `invalid_arguments` naming
 * the field; a hit ID that is malformed, of another user's Note or of an
 * unapproved one is `invalid_arguments`, `note_not_found` or
 * `note_not_approved`. Never an internal error, never a word of a Note the
 * caller may not use.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { api, failure, newNote, ok, personApi, rawMcp, signInAs, tool, TOKENS, uniqueNoteId } from "../support/workers.js";

let alice: { noteId: string; deck: string; slide: string; sheet: string; row: string; version: number };
let hidden: { noteId: string; slideId: string };
let bobs: { noteId: string; slideId: string };

/** A deck with one slide, added by the person through `token`'s API; the tab's and the slide's IDs. */
async function deckOf(noteId: string, token: string, title: string, body: string): Promise<{ tab: string; slide: string; version: number }> {
  const tab = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "Deck" }, token);
  expect(tab.status, JSON.stringify(tab.body)).toBe(201);
  const added = await api("POST", `/notes/${noteId}/tabs/${tab.body.tab.id}/slides`, { slides: [{ title, body }] }, token);
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  return { tab: tab.body.tab.id, slide: added.body.slide_ids[0], version: added.body.version };
}

beforeAll(async () => {
  await signInAs("agent", "app", "bobApp");
  const note = await newNote({ title: "Zephyr field notes" });
  const deck = await deckOf(note.noteId, TOKENS.app, "Quokka census", "Zephyr counted 12 quokkas near the col de Rottnest");
  const sheet = await api("POST", `/notes/${note.noteId}/tabs`, { tab_type: "sheet", label: "Sightings" }, TOKENS.app);
  await api("POST", `/notes/${note.noteId}/tabs/${sheet.body.tab.id}/columns`, { columns: ["Place", "Count"] }, TOKENS.app);
  const rows = await api("POST", `/notes/${note.noteId}/tabs/${sheet.body.tab.id}/rows`, { rows: [{ Place: "Rottnest", Count: 12 }] }, TOKENS.app);
  expect(rows.status, JSON.stringify(rows.body)).toBe(201);
  alice = { noteId: note.noteId, deck: deck.tab, slide: deck.slide, sheet: sheet.body.tab.id, row: rows.body.row_ids[0], version: rows.body.version };

  // alice's Note she has not approved for connectors, and bob's (approved), both holding the same words.
  const unapproved = await newNote({ title: "Unapproved zephyr", approved: false });
  const secret = await deckOf(unapproved.noteId, TOKENS.app, "Zephyr secret", "quokka plans");
  hidden = { noteId: unapproved.noteId, slideId: `${unapproved.noteId}/${secret.tab}/${secret.slide}` };
  const bob = await newNote({ title: "Bob's zephyr", token: TOKENS.bobApp });
  const bobDeck = await deckOf(bob.noteId, TOKENS.bobApp, "Zephyr of bob", "quokka");
  bobs = { noteId: bob.noteId, slideId: `${bob.noteId}/${bobDeck.tab}/${bobDeck.slide}` };
});

/** The Notes a page of hits comes from. */
const notesOf = (page: { hits: { note_id: string }[] }) => [...new Set(page.hits.map((hit) => hit.note_id))];

describe("FTS5's syntax in a query is text", () => {
  const HOSTILE = ['"zephyr', 'zephyr"', "zephyr*", "NEAR(zephyr quokka)", "NEAR(zephyr, 2)", "zephyr OR", "OR zephyr", "zephyr AND NOT", "-zephyr", "^zephyr", "title:zephyr", "col:zephyr", '{title body}: zephyr', "zephyr)("];

  for (const within of [false, true]) {
    it(`each finds the words it holds, as words, ${within ? "within one Note" : "across Notes"}, and only in alice's approved Note`, async () => {
      for (const query of HOSTILE) {
        const page = await ok("search", { query, ...(within ? { note_id: alice.noteId } : {}) });
        expect(page.hits.length, query).toBeGreaterThan(0);
        expect(notesOf(page), query).toEqual([alice.noteId]);
      }
      // Split by the syntax into words no item holds: ordinary, empty results.
      expect(await ok("search", { query: "zeph*r", ...(within ? { note_id: alice.noteId } : {}) })).toMatchObject({ hits: [], results: [], next_cursor: null });
      // "col" is a word of the slide's body (col de Rottnest), not a column filter; NEAR is a word too.
      const col = await ok("search", { query: "col:", ...(within ? { note_id: alice.noteId } : {}) });
      expect(col.hits.map((hit: { id: string }) => hit.id)).toEqual([`${alice.noteId}/${alice.deck}/${alice.slide}`]);
      const near = await ok("search", { query: "NEAR(", ...(within ? { note_id: alice.noteId } : {}) });
      expect(near.hits.map((hit: { id: string }) => hit.id)).toEqual([`${alice.noteId}/${alice.deck}/${alice.slide}`]);
    });
  }

  it("a query of syntax alone holds no word: invalid_arguments naming query", async () => {
    for (const query of ['"', "*", '""', "^", "-", "(", "*:*", '"*" - ^']) {
      for (const scope of [{}, { note_id: alice.noteId }]) {
        const error = await failure("search", { query, ...scope });
        expect(error.code, query).toBe("invalid_arguments");
        expect(error.issues, query).toEqual([{ path: "query", problem: expect.stringContaining("holds no word") }]);
      }
    }
  });
});

describe("bad search arguments are invalid_arguments naming the field", () => {
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["empty", { query: "" }, "query", /must not be empty/],
    ["blank", { query: " \t\u200b " }, "query", /blank/],
    ["5,000 characters", { query: "zephyr ".repeat(715).slice(0, 5000) }, "query", /at most 1000 UTF-16 code units \(got 5000\)/],
    ["a number", { query: 5 }, "query", /expected string/],
    ["null", { query: null }, "query", /expected string/],
    ["a list", { query: ["zephyr"] }, "query", /expected string/],
    ["missing", {}, "query", /required/],
    ["limit 0", { query: "zephyr", limit: 0 }, "limit", /at least 1/],
    ["limit 51", { query: "zephyr", limit: 51 }, "limit", /at most 50/],
    ["limit 1.5", { query: "zephyr", limit: 1.5 }, "limit", /whole number/],
    ["limit as text", { query: "zephyr", limit: "5" }, "limit", /expected number/],
    ["a note_id that is no ID", { query: "zephyr", note_id: "../etc" }, "note_id", /letters, digits/],
    ["a note_id of the wrong type", { query: "zephyr", note_id: 7 }, "note_id", /expected string/],
    ["an empty cursor", { query: "zephyr", cursor: "" }, "cursor", /must not be empty/],
    ["an unknown field", { query: "zephyr", filter: "slides" }, "filter", /the fields here are: query, note_id, limit, cursor/],
  ];
  for (const [name, args, path, problem] of cases) {
    it(`${name}`, async () => {
      const error = await failure("search", args);
      expect(error.code).toBe("invalid_arguments");
      expect(error.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
      expect(error.issues[0].problem).toMatch(problem);
    });
  }

  it("a lone surrogate (JSON \\ud800) in the query", async () => {
    const answer = await rawMcp(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"zephyr \\ud800"}}}`);
    expect(answer.result.isError).toBe(true);
    expect(JSON.parse(answer.result.content[0].text).error.issues).toEqual([{ path: "query", problem: "must be well-formed Unicode (a lone surrogate at index 7)" }]);
  });

  it("forged cursors: garbage, a truncated one, another query's, another scope's", async () => {
    const first = await ok("search", { query: "zephyr quokka rottnest", limit: 1 });
    expect(first.next_cursor).toEqual(expect.any(String));
    const within = await ok("search", { query: "zephyr quokka rottnest", note_id: alice.noteId, limit: 1 });
    expect(within.next_cursor).toEqual(expect.any(String));
    const forged: [Record<string, unknown>, string][] = [
      [{ query: "zephyr", cursor: "bm90IGEgY3Vyc29y" }, "garbage"],
      [{ query: "zephyr quokka rottnest", cursor: first.next_cursor.slice(0, -3) }, "truncated"],
      [{ query: "rottnest", cursor: first.next_cursor }, "another query's"],
      [{ query: "zephyr quokka rottnest", note_id: alice.noteId, cursor: first.next_cursor }, "across Notes' cursor within a Note"],
      [{ query: "zephyr quokka rottnest", cursor: within.next_cursor }, "a Note's cursor across Notes"],
      [{ query: "zephyr", cursor: "x".repeat(513) }, "too long"],
      [{ query: "zephyr", cursor: "a/b+c==" }, "not base64url"],
    ];
    for (const [args, what] of forged) {
      const error = await failure("search", args);
      expect(error.code, what).toBe("invalid_arguments");
      expect(error.issues.map((issue: { path: string }) => issue.path), what).toEqual(["cursor"]);
    }
  });
});

describe("fetch by a hit's ID", () => {
  it("malformed IDs are invalid_arguments naming id", async () => {
    for (const id of ["", " ", "a//b", "a/b/c/d", "/slides-1/slide-1", "no such/id", `${alice.noteId}/\n`, 42, null]) {
      const error = await failure("fetch", { id });
      expect(error.code, JSON.stringify(id)).toBe("invalid_arguments");
      expect(error.issues.map((issue: { path: string }) => issue.path), JSON.stringify(id)).toEqual(["id"]);
    }
    expect((await failure("fetch", {})).issues).toEqual([{ path: "id", problem: "required" }]);
    expect((await failure("fetch", { id: alice.noteId, query: "x" })).issues[0].path).toBe("query");
  });

  it("another user's Note is note_not_found, exactly as one that does not exist; an unapproved one note_not_approved", async () => {
    const foreign = await failure("fetch", { id: bobs.slideId });
    expect(foreign).toMatchObject({ code: "note_not_found", note_id: bobs.noteId });
    const missing = await failure("fetch", { id: `${uniqueNoteId()}/${alice.deck}/${alice.slide}` });
    expect(missing.code).toBe("note_not_found");
    expect(Object.keys(foreign).sort()).toEqual(Object.keys(missing).sort());
    expect(await failure("fetch", { id: hidden.slideId })).toMatchObject({ code: "note_not_approved", note_id: hidden.noteId });
    // A search within either is the same refusal.
    expect((await failure("search", { query: "zephyr", note_id: bobs.noteId })).code).toBe("note_not_found");
    expect((await failure("search", { query: "zephyr", note_id: hidden.noteId })).code).toBe("note_not_approved");
  });

  it("an ID of alice's Note naming nothing it holds is item_not_found; one naming a slide under another tab too", async () => {
    for (const id of [`${alice.noteId}/${alice.deck}/slide-999-zz`, `${alice.noteId}/${alice.sheet}/${alice.slide}`, `${alice.noteId}/no-tab`, `${alice.noteId}/markdown/section-99`]) {
      expect(await failure("fetch", { id }), id).toMatchObject({ code: "item_not_found", id });
    }
    const slide = await ok("fetch", { id: `${alice.noteId}/${alice.deck}/${alice.slide}` });
    expect(slide).toMatchObject({ title: "Quokka census", metadata: { kind: "slide", note_id: alice.noteId, tab_id: alice.deck, slide_id: alice.slide } });
    expect(slide.text).toContain("12 quokkas");
  });
});

describe("the person's GET /api/v1/search", () => {
  it("finds the person's own Notes, approved or not, never another user's; refuses as the tool does, naming q", async () => {
    const all = await api("GET", "/search?q=zephyr&limit=50");
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(notesOf(all.body).sort()).toEqual([alice.noteId, hidden.noteId].sort());
    expect(Object.keys(all.body)).toEqual(["results", "hits", "next_cursor"]);
    const row = (await api("GET", `/search?q=ROTTNEST&note_id=${alice.noteId}`)).body;
    expect(row.hits.find((hit: { kind: string }) => hit.kind === "row")).toMatchObject({ row_id: alice.row, tab_id: alice.sheet, url: `http://127.0.0.1:8787/notes/${alice.noteId}?tab=${alice.sheet}` });

    const refused: [string, number, string, RegExp][] = [
      ["/search", 400, "q", /required/],
      ["/search?q=", 400, "q", /must not be empty/],
      ["/search?q=%20%20", 400, "q", /blank/],
      ["/search?q=%22*%22", 400, "q", /holds no word/],
      [`/search?q=${"a".repeat(1001)}`, 400, "q", /at most 1000/],
      ["/search?q=%ED%A0%80", 400, "q", /percent-encoded UTF-8/],
      ["/search?q=zephyr&limit=0", 400, "limit", /at least 1/],
      ["/search?q=zephyr&limit=1.5", 400, "limit", /whole number/],
      ["/search?q=zephyr&limit=51", 400, "limit", /at most 50/],
      ["/search?q=zephyr&cursor=bm90", 400, "cursor", /cursor/],
      ["/search?q=zephyr&q=quokka", 400, "q", /more than once/],
      ["/search?query=zephyr", 400, "query", /unexpected field/],
    ];
    for (const [path, status, field, problem] of refused) {
      const answer = await api("GET", path);
      expect(answer.status, path).toBe(status);
      expect(answer.body.error.code, path).toBe("invalid_arguments");
      expect(answer.body.error.issues, path).toContainEqual({ path: field, problem: expect.stringMatching(problem) });
    }
    const foreign = await api("GET", `/search?q=zephyr&note_id=${bobs.noteId}`);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, "note_not_found"]);
    // An agent's token is for the MCP resource, not the person's API.
    expect((await personApi(TOKENS.agent).request("GET", "/search?q=zephyr")).status).toBe(401);
  });
});
