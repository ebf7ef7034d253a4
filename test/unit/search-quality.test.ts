/**
 * The search-quality corpus and its scoring (bench/search-quality, docs/search.md
 * "Quality"): the corpus is what the issue asks for and the same from the same
 * seed; every labelled query could find its item (the item holds one of its
 * words, as the one tokenizer reads them); the corpus fits the Note's limits
 * (its load never fails half-way); a hit counts only with the exact IDs.
 */
import { describe, expect, it } from "vitest";
import { generateCorpus, itemText, labelTargets, markdownOf, PACKS } from "../../bench/search-quality/corpus.js";
import { figures, isHit, rankOf, type Expected, type QueryResult } from "../../bench/search-quality/score.js";
import { LANGS } from "../../bench/search-quality/types.js";
import { LIMITS } from "../../src/note/limits.js";
import { indexText, queryTerms } from "../../src/note/search/text.js";

const corpus = generateCorpus();

describe("the corpus", () => {
  it("is the same from the same seed, and another from another", () => {
    expect(JSON.stringify(generateCorpus(corpus.seed).notes)).toBe(JSON.stringify(corpus.notes));
    expect(JSON.stringify(generateCorpus(corpus.seed + 1).notes)).not.toBe(JSON.stringify(corpus.notes));
  });

  it("has at least 200 Notes and 60 labelled queries, in four languages, with decks, Sheets, Markdown and sources in each", () => {
    expect(corpus.notes.length).toBeGreaterThanOrEqual(200);
    expect(corpus.queries.length).toBeGreaterThanOrEqual(60);
    for (const lang of LANGS) {
      const notes = corpus.notes.filter((n) => n.lang === lang);
      expect(notes.length, lang).toBeGreaterThanOrEqual(50);
      expect(notes.filter((n) => n.tabs.some((t) => t.type === "slides")).length, `${lang} decks`).toBeGreaterThanOrEqual(10);
      expect(notes.filter((n) => n.tabs.some((t) => t.type === "sheet")).length, `${lang} Sheets`).toBeGreaterThanOrEqual(10);
      expect(notes.filter((n) => n.sections.length >= 3).length, `${lang} documents`).toBeGreaterThanOrEqual(10);
      expect(notes.filter((n) => n.sources.length > 0).length, `${lang} sources`).toBeGreaterThanOrEqual(10);
      const queries = corpus.queries.filter((q) => q.lang === lang);
      expect(queries.length, lang).toBeGreaterThanOrEqual(15);
      expect(queries.some((q) => q.type === "question"), `${lang} has a question`).toBe(true);
    }
    const text = JSON.stringify(corpus.notes);
    for (const word of ["Perché", "Città", "Università", "Forlì", "जयपुर", "छुट्टी", "値上げ"]) expect(text.includes(word), word).toBe(true);
    expect(corpus.queries.filter((q) => q.type === "no-accents").length).toBeGreaterThanOrEqual(4);
    expect(corpus.queries.filter((q) => q.lang === "ja" && q.type === "inside-word").length).toBeGreaterThanOrEqual(5);
  });

  // A word here is a token of the one tokenizer: a Japanese query's pairs count one by one (the query
  // "大阪の顧客は誰ですか" shares 大阪 with its row), whatever the search then makes of a run of pairs.
  it("labels one item each, and every query's item holds at least one of the query's words", () => {
    const byId = new Map(corpus.notes.map((n) => [n.noteId, n]));
    expect(byId.size).toBe(corpus.notes.length);
    for (const q of corpus.queries) {
      const target = corpus.targets.get(q.expect);
      expect(target, q.id).toBeDefined();
      const note = byId.get(target?.noteId ?? "");
      const words = new Set(indexText(note === undefined || target === undefined ? "" : itemText(note, target)).split(" "));
      const shared = queryTerms(q.query)
        .flat()
        .filter((t) => words.has(t));
      expect(shared.length, `${q.id} "${q.query}" in ${q.expect}`).toBeGreaterThan(0);
    }
    // Distractors (labels "x-…") are near a needle and never expected.
    const expected = new Set(corpus.queries.map((q) => q.expect));
    for (const label of corpus.targets.keys()) expect(expected.has(label) || label.startsWith("x-"), label).toBe(true);
    const labelled = corpus.notes.filter((n) => n.label !== undefined).slice(0, 1);
    expect(() => labelTargets([...corpus.notes, ...labelled.map((n) => ({ ...n, noteId: "again" }))])).toThrow(/used twice/);
  });

  it("fits the Note's limits, so its load never stops half-way", () => {
    for (const note of corpus.notes) {
      expect(note.noteId.length, note.noteId).toBeLessThanOrEqual(LIMITS.noteIdLength);
      expect(note.title.length, note.noteId).toBeLessThanOrEqual(LIMITS.noteTitleLength);
      expect(markdownOf(note).length).toBeLessThanOrEqual(LIMITS.markdownLength);
      expect(new Set(note.sources.map((s) => s.url)).size, `${note.noteId}: a URL twice`).toBe(note.sources.length);
      for (const source of note.sources) expect(() => new URL(source.url), source.url).not.toThrow();
      for (const tab of note.tabs) {
        expect(tab.label.length).toBeLessThanOrEqual(LIMITS.tabLabelLength);
        if (tab.type === "slides") expect(tab.slides.length, note.noteId).toBeLessThanOrEqual(LIMITS.slidesPerCall);
        else {
          expect(tab.rows.length, note.noteId).toBeLessThanOrEqual(LIMITS.rowsPerCall);
          for (const row of tab.rows) expect(Object.keys(row.cells).sort(), note.noteId).toEqual([...tab.columns].sort());
        }
      }
    }
    expect(PACKS.map((p) => p.lang)).toEqual(LANGS);
  });
});

describe("scoring", () => {
  const slide: Expected = { kind: "slide", note_id: "deck", tab_id: "t-1", item_id: "s-3" };
  const section: Expected = { kind: "markdown", note_id: "doc", heading: "Data retention", section: 2 };

  it("counts a hit only by the exact IDs: the same slide ID in another Note or tab is not it", () => {
    expect(isHit({ kind: "slide", note_id: "deck", tab_id: "t-1", slide_id: "s-3" }, slide)).toBe(true);
    expect(isHit({ kind: "slide", note_id: "other", tab_id: "t-1", slide_id: "s-3" }, slide)).toBe(false);
    expect(isHit({ kind: "slide", note_id: "deck", tab_id: "t-2", slide_id: "s-3" }, slide)).toBe(false);
    expect(isHit({ kind: "tab", note_id: "deck", tab_id: "t-1" }, slide)).toBe(false);
    expect(isHit({ kind: "markdown", note_id: "doc", title: "## Data retention", section: 5 }, section)).toBe(true);
    expect(isHit({ kind: "markdown", note_id: "doc", title: "Backups", section: 2 }, section)).toBe(true);
    expect(isHit({ kind: "markdown", note_id: "doc", title: "Backups", section: 3 }, section)).toBe(false);
  });

  it("gives precision at 1, recall at 5 and the reciprocal rank", () => {
    const hit = { kind: "slide", note_id: "deck", tab_id: "t-1", slide_id: "s-3" };
    const miss = { kind: "slide", note_id: "deck", tab_id: "t-1", slide_id: "s-9" };
    expect(rankOf([miss, miss, hit], slide)).toBe(3);
    expect(rankOf([miss], slide)).toBeNull();
    const result = (rank: number | null): QueryResult => ({ query: corpus.queries[0] as QueryResult["query"], expected: slide, hits: [], rank, error: null });
    expect(figures([result(1), result(2), result(null), result(1)])).toEqual({ queries: 4, precisionAt1: 0.5, recallAt5: 0.75, mrr5: (1 + 0.5 + 0 + 1) / 4 });
  });
});
