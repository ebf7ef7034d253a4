/** Paging cursors: a cursor names one position in one Note's list of one kind, and nothing else. */
import { describe, expect, it } from "vitest";
import { decodeCursor, decodeNotesCursor, decodeNotesSearchCursor, encodeCursor, encodeNotesCursor, encodeNotesSearchCursor } from "../../src/note/cursor.js";

const NOTE = "note-cursor";

describe("a cursor round-trips", () => {
  it.each([
    ["sources", 0],
    ["sources", 50],
    ["files", 1],
    ["files", 99_999],
    ["sources", 999_999_999_999_999],
  ] as const)("a %s cursor after %i decodes to the same position", (kind, after) => {
    const cursor = encodeCursor(NOTE, kind, after);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(NOTE, kind, cursor)).toBe(after);
  });
});

describe("a cursor this Note did not issue is refused", () => {
  const cursor = encodeCursor(NOTE, "sources", 50);

  it("a cursor from another Note is refused", () => {
    expect(decodeCursor("note-other", "sources", cursor)).toBeNull();
  });

  it("a cursor for the other kind of attachment is refused", () => {
    expect(decodeCursor(NOTE, "files", cursor)).toBeNull();
    expect(decodeCursor(NOTE, "sources", encodeCursor(NOTE, "files", 50))).toBeNull();
  });

  it("a cursor with any one character changed is refused", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const accepted: string[] = [];
    for (const c of [cursor, encodeCursor(NOTE, "files", 7), encodeCursor(NOTE, "sources", 123)]) {
      for (let i = 0; i < c.length; i++) {
        for (const replacement of alphabet) {
          if (replacement === c[i]) continue;
          const flipped = c.slice(0, i) + replacement + c.slice(i + 1);
          if (decodeCursor(NOTE, "sources", flipped) !== null || decodeCursor(NOTE, "files", flipped) !== null) accepted.push(flipped);
        }
      }
    }
    expect(accepted).toEqual([]);
  });

  it("a changed cursor never pages from another position", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const elsewhere: string[] = [];
    for (let i = 0; i < cursor.length; i++) {
      for (const replacement of alphabet) {
        const flipped = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
        const position = decodeCursor(NOTE, "sources", flipped);
        if (position !== null && position !== 50) elsewhere.push(flipped);
      }
    }
    expect(elsewhere).toEqual([]);
  });

  it("a truncated cursor is refused", () => {
    for (let length = 0; length < cursor.length; length++) {
      expect(decodeCursor(NOTE, "sources", cursor.slice(0, length))).toBeNull();
    }
  });

  it("text that is not base64url is refused", () => {
    for (const bad of ["not a cursor", "!!!!", "c291cmNlcy41MC4x+/", "\u00e9t\u00e9", "sources.50.00000000"]) {
      expect(decodeCursor(NOTE, "sources", bad)).toBeNull();
    }
  });

  it("a cursor with base64 padding or standard-alphabet characters is refused", () => {
    expect(decodeCursor(NOTE, "sources", `${cursor}=`)).toBeNull();
    expect(decodeCursor(NOTE, "sources", `${cursor}==`)).toBeNull();
    const standard = cursor.replace(/-/g, "+").replace(/_/g, "/");
    if (standard !== cursor) expect(decodeCursor(NOTE, "sources", standard)).toBeNull();
  });

  it("an extremely long cursor is refused", () => {
    expect(decodeCursor(NOTE, "sources", cursor.repeat(1000))).toBeNull();
    expect(decodeCursor(NOTE, "sources", "A".repeat(1_000_000))).toBeNull();
  });

  it("a well-formed cursor with a forged checksum is refused", () => {
    const forged = btoa("sources.0.00000000").replace(/=+$/, "");
    expect(decodeCursor(NOTE, "sources", forged)).toBeNull();
  });
});

describe("a list_notes cursor names a Note ID in one user's list", () => {
  it.each(["a", "n-0001", "Z".repeat(64), "note-1b7c9a4e-4f7d-4a5b-9d3e-2a1c3b4d5e6f"])("a cursor after %s round-trips", (noteId) => {
    const cursor = encodeNotesCursor("alice", noteId);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeNotesCursor("alice", cursor)).toBe(noteId);
  });

  it("another user's cursor, an attachments cursor, an edited one and garbage are refused", () => {
    const cursor = encodeNotesCursor("alice", "n-0042");
    expect(decodeNotesCursor("bob", cursor)).toBeNull();
    expect(decodeNotesCursor("alice", encodeCursor("alice", "sources", 5))).toBeNull();
    const flipped = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6);
    expect(decodeNotesCursor("alice", flipped)).toBeNull();
    for (const bad of ["", "%%%", "bm90LWEtY3Vyc29y", "x".repeat(200)]) expect(decodeNotesCursor("alice", bad)).toBeNull();
  });
});

describe("a search cursor names a place in one user's ranking for one query", () => {
  const MATCH = '"osaka" OR "pricing"';

  it.each([-12.345678901234567, -1e-7, 0, 3.5e-300, -0.000123])("a cursor after score %d round-trips exactly", (score) => {
    const cursor = encodeNotesSearchCursor("alice", MATCH, { score, rowid: 987_654 });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeNotesSearchCursor("alice", MATCH, cursor)).toEqual({ score, rowid: 987_654 });
  });

  it("another user's cursor, another query's, a list_notes cursor, an edited one and garbage are refused", () => {
    const cursor = encodeNotesSearchCursor("alice", MATCH, { score: -2.5, rowid: 7 });
    expect(decodeNotesSearchCursor("bob", MATCH, cursor)).toBeNull();
    expect(decodeNotesSearchCursor("alice", '"osaka"', cursor)).toBeNull();
    expect(decodeNotesSearchCursor("alice", MATCH, encodeNotesCursor("alice", "n-1"))).toBeNull();
    const flipped = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6);
    expect(decodeNotesSearchCursor("alice", MATCH, flipped)).toBeNull();
    for (const bad of ["", "%%%", "x".repeat(121)]) expect(decodeNotesSearchCursor("alice", MATCH, bad)).toBeNull();
  });
});
