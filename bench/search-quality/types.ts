/**
 * The search-quality corpus's shapes (docs/search.md, "Quality"): Notes as the
 * generator writes them, labelled items, and the labelled queries. Pure data:
 * no I/O, no Cloudflare, so a unit test can check it in Node.
 */

export type Lang = "en" | "it" | "hi" | "ja";
export const LANGS: readonly Lang[] = ["en", "it", "hi", "ja"];

export type Cells = Record<string, string | number>;

export interface CorpusSlide {
  title: string;
  body: string;
  notes: string;
  /** A labelled slide: a query expects it. */
  label?: string;
}

export interface CorpusRow {
  cells: Cells;
  label?: string;
}

export type CorpusTab =
  | { type: "slides"; label: string; slides: CorpusSlide[]; /** A labelled tab (a query for its label). */ tag?: string }
  | { type: "sheet"; label: string; columns: string[]; rows: CorpusRow[]; tag?: string };

export interface CorpusSection {
  heading: string;
  text: string;
  label?: string;
}

export interface CorpusSource {
  title: string;
  url: string;
  description: string;
  label?: string;
}

export interface CorpusNote {
  noteId: string;
  lang: Lang;
  title: string;
  /** The Note itself is labelled (a query for its title). */
  label?: string;
  /** Markdown, as `## heading` sections (the first line a `# title`). */
  sections: CorpusSection[];
  tabs: CorpusTab[];
  sources: CorpusSource[];
}

/** Where a label points, before loading: a Note, one of its tabs, a slide or row of a tab, a Markdown section, a source. */
export type LabelTarget =
  | { kind: "note"; noteId: string }
  | { kind: "tab"; noteId: string; tab: number }
  | { kind: "slide"; noteId: string; tab: number; item: number }
  | { kind: "row"; noteId: string; tab: number; item: number }
  | { kind: "markdown"; noteId: string; section: number; heading: string }
  | { kind: "source"; noteId: string; item: number };

export type QueryType = "keyword" | "question" | "phrase" | "no-accents" | "inside-word" | "title" | "mixed-script";

export interface LabelledQuery {
  id: string;
  lang: Lang;
  query: string;
  type: QueryType;
  /** The label of the one item the query must find. */
  expect: string;
}

/**
 * A language's material: pools the generator draws filler from, the needles
 * (hand-written items each query targets, placed into generated Notes) and
 * distractors (hand-written items close to a needle, placed elsewhere).
 */
export interface LangPack {
  lang: Lang;
  cities: string[];
  people: string[];
  companies: string[];
  products: string[];
  quarters: string[];
  statuses: string[];
  categories: string[];
  /** An expense's note; `{city}`, `{company}` filled in. */
  expenseNotes: string[];
  /** Column names: customers Sheet, orders Sheet, expenses Sheet. */
  customerColumns: [string, string, string, string, string];
  orderColumns: [string, string, string, string, string];
  expenseColumns: [string, string, string, string];
  sheetLabels: { customers: string; orders: string; expenses: string };
  deckLabel: string;
  /** Deck topics: a title template and slides; `{city}`, `{q}`, `{n}`, `{pct}`, `{company}`, `{person}`, `{product}` are filled in. */
  decks: { title: string; slides: [string, string][] }[];
  slideNotes: string[];
  /** Document topics: a title template and sections. */
  docs: { title: string; sections: [string, string][] }[];
  /** Source templates: title, URL, description. */
  sources: [string, string, string][];
  sourcesNoteTitle: string;
  sheetNoteTitles: { customers: string; orders: string; expenses: string };
  needles: Needle[];
  queries: Omit<LabelledQuery, "id" | "lang">[];
}

/** A hand-written item, placed into the `index`-th generated Note of its kind (or a Note of its own). */
export type Needle =
  | { label: string; at: Place; slide: Omit<CorpusSlide, "label"> }
  | { label: string; at: Place; row: Cells }
  | { label: string; at: Place; section: Omit<CorpusSection, "label"> }
  | { label: string; at: Place; source: Omit<CorpusSource, "label"> }
  /** A Note of its own with this title (a query for the title), with a short Markdown. */
  | { label: string; note: { title: string; sections: [string, string][] } }
  /** An extra tab (its label is what is searched) on a generated Note. */
  | { label: string; at: Place; tab: { label: string; kind: "customers" | "orders" | "expenses" } };

export interface Place {
  kind: "deck" | "customers" | "orders" | "expenses" | "doc" | "sources";
  /** Which generated Note of that kind (modulo how many there are). */
  index: number;
}
