/**
 * The search-quality corpus, generated from a seed (the same seed, the same
 * corpus, byte for byte): for each of English, Italian, Hindi and Japanese,
 * 16 decks, 16 Sheets (customers, orders, expenses), 16 Markdown documents and
 * 12 Notes of sources, drawn from the language's pools (lang-*.ts) so that
 * Notes of one topic are near-duplicates of each other; then the needles
 * (hand-written items each query must find) and their distractors placed into
 * them. Labels name the needles; `targets` says where each one is, by Note and
 * position, which the loader turns into IDs.
 */
import { en } from "./lang-en.js";
import { hi } from "./lang-hi.js";
import { it } from "./lang-it.js";
import { ja } from "./lang-ja.js";
import type { Cells, CorpusNote, CorpusRow, CorpusSection, CorpusSlide, CorpusTab, LabelledQuery, LabelTarget, LangPack, Place } from "./types.js";

export const PACKS: readonly LangPack[] = [en, it, hi, ja];
export const DEFAULT_SEED = 26;

/** Generated Notes of each kind a language has. */
export const COUNTS = { deck: 16, customers: 6, orders: 5, expenses: 5, doc: 16, sources: 12 } as const;
type GeneratedKind = keyof typeof COUNTS;

export interface Corpus {
  seed: number;
  notes: CorpusNote[];
  queries: LabelledQuery[];
  targets: Map<string, LabelTarget>;
}

/** mulberry32: a small, fast, seedable generator; the corpus needs no more. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Draw {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** `count` distinct items, in the list's order. */
  some<T>(items: readonly T[], count: number): T[] {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(count, items.length)) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i] as T);
  }
}

interface Params {
  city: string;
  q: string;
  n: number;
  pct: number;
  company: string;
  person: string;
  product: string;
}

function params(pack: LangPack, d: Draw): Params {
  return { city: d.pick(pack.cities), q: d.pick(pack.quarters), n: d.int(12, 980), pct: d.int(2, 38), company: d.pick(pack.companies), person: d.pick(pack.people), product: d.pick(pack.products) };
}

function fill(template: string, p: Params): string {
  return template.replace(/\{(city|q|n|pct|company|person|product)\}/g, (_, key: keyof Params) => String(p[key]));
}

const pad = (i: number): string => String(i).padStart(2, "0");

function deck(pack: LangPack, d: Draw, i: number): CorpusNote {
  const topic = pack.decks[i % pack.decks.length] as LangPack["decks"][number];
  const other = pack.decks[(i + 2) % pack.decks.length] as LangPack["decks"][number];
  const p = params(pack, d);
  const own = d.some(topic.slides, d.int(4, 6));
  const borrowed = d.some(other.slides, d.int(0, 2));
  const slides: CorpusSlide[] = [...own, ...borrowed].map(([title, body]) => {
    const q = { ...p, n: d.int(12, 980), pct: d.int(2, 38) };
    return { title: fill(title, q), body: fill(body, q), notes: d.pick(pack.slideNotes) };
  });
  return { noteId: `sq-${pack.lang}-deck-${pad(i)}`, lang: pack.lang, title: fill(topic.title, p), sections: [], tabs: [{ type: "slides", label: `${pack.deckLabel} ${p.q}`, slides }], sources: [] };
}

function sheetRows(pack: LangPack, d: Draw, kind: "customers" | "orders" | "expenses", count: number): CorpusRow[] {
  const prefix = { en: "SO-", it: "ORD-", hi: "आदेश-", ja: "注文-" }[pack.lang];
  return Array.from({ length: count }, (): CorpusRow => {
    if (kind === "customers") {
      const [customer, company, city, amount, status] = pack.customerColumns;
      return { cells: { [customer]: d.pick(pack.people), [company]: d.pick(pack.companies), [city]: d.pick(pack.cities), [amount]: d.int(5, 400) * 100, [status]: d.pick(pack.statuses) } };
    }
    if (kind === "orders") {
      const [order, product, quantity, city, amount] = pack.orderColumns;
      return { cells: { [order]: `${prefix}${d.int(10_000, 39_999)}`, [product]: d.pick(pack.products), [quantity]: d.int(1, 40), [city]: d.pick(pack.cities), [amount]: d.int(10, 2_000) * 10 } };
    }
    const [date, category, amount, note] = pack.expenseColumns;
    const p = params(pack, d);
    return { cells: { [date]: `2026-${pad(d.int(1, 12))}-${pad(d.int(1, 28))}`, [category]: d.pick(pack.categories), [amount]: d.int(500, 90_000) / 100, [note]: fill(d.pick(pack.expenseNotes), p) } };
  });
}

function columnsOf(pack: LangPack, kind: "customers" | "orders" | "expenses"): string[] {
  return [...(kind === "customers" ? pack.customerColumns : kind === "orders" ? pack.orderColumns : pack.expenseColumns)];
}

function sheet(pack: LangPack, d: Draw, kind: "customers" | "orders" | "expenses", i: number): CorpusNote {
  const p = params(pack, d);
  const tab: CorpusTab = { type: "sheet", label: pack.sheetLabels[kind], columns: columnsOf(pack, kind), rows: sheetRows(pack, d, kind, d.int(20, 45)) };
  return { noteId: `sq-${pack.lang}-${kind}-${pad(i)}`, lang: pack.lang, title: fill(pack.sheetNoteTitles[kind], p), sections: [], tabs: [tab], sources: [] };
}

function doc(pack: LangPack, d: Draw, i: number): CorpusNote {
  const topic = pack.docs[i % pack.docs.length] as LangPack["docs"][number];
  const p = params(pack, d);
  const sections: CorpusSection[] = d.some(topic.sections, d.int(3, topic.sections.length)).map(([heading, text]) => ({ heading, text: fill(text, { ...p, n: d.int(12, 980) }) }));
  return { noteId: `sq-${pack.lang}-doc-${pad(i)}`, lang: pack.lang, title: fill(topic.title, p), sections, tabs: [], sources: [] };
}

function sourcesNote(pack: LangPack, d: Draw, i: number): CorpusNote {
  const p = params(pack, d);
  const sources = d.some(pack.sources, d.int(4, 6)).map(([title, url, description]) => {
    const q = { ...p, n: d.int(2019, 2026) + d.int(0, 99) * 10_000 };
    // A URL holds no spaces: a city's or a quarter's name in it is written with dashes.
    return { title: fill(title, q), url: fill(url, q).replace(/\s+/g, "-"), description: fill(description, q) };
  });
  return { noteId: `sq-${pack.lang}-sources-${pad(i)}`, lang: pack.lang, title: fill(pack.sourcesNoteTitle, { ...p, n: i + 1 }), sections: [], tabs: [], sources };
}

function place(pack: LangPack, byKind: Map<GeneratedKind, CorpusNote[]>, at: Place): CorpusNote {
  const notes = byKind.get(at.kind) ?? [];
  const note = notes[at.index % notes.length];
  if (note === undefined) throw new Error(`${pack.lang}: no generated Note of kind ${at.kind}`);
  return note;
}

function languageNotes(pack: LangPack, d: Draw): CorpusNote[] {
  const byKind = new Map<GeneratedKind, CorpusNote[]>();
  const make = (kind: GeneratedKind, build: (i: number) => CorpusNote): void => void byKind.set(kind, Array.from({ length: COUNTS[kind] }, (_, i) => build(i)));
  make("deck", (i) => deck(pack, d, i));
  make("customers", (i) => sheet(pack, d, "customers", i));
  make("orders", (i) => sheet(pack, d, "orders", i));
  make("expenses", (i) => sheet(pack, d, "expenses", i));
  make("doc", (i) => doc(pack, d, i));
  make("sources", (i) => sourcesNote(pack, d, i));
  const own: CorpusNote[] = [];
  for (const needle of pack.needles) {
    if ("note" in needle) {
      own.push({
        noteId: `sq-${needle.label}`,
        lang: pack.lang,
        title: needle.note.title,
        label: needle.label,
        sections: needle.note.sections.map(([heading, text]) => ({ heading, text })),
        tabs: [],
        sources: [],
      });
      continue;
    }
    const note = place(pack, byKind, needle.at);
    const middle = <T>(list: T[], item: T): void => void list.splice(Math.floor(list.length / 2) + d.int(-1, 1), 0, item);
    if ("slide" in needle) {
      const tab = note.tabs.find((t) => t.type === "slides");
      if (tab?.type !== "slides") throw new Error(`${needle.label}: ${note.noteId} has no deck`);
      middle(tab.slides, { ...needle.slide, label: needle.label });
    } else if ("row" in needle) {
      const tab = note.tabs.find((t) => t.type === "sheet");
      if (tab?.type !== "sheet") throw new Error(`${needle.label}: ${note.noteId} has no Sheet`);
      const missing = tab.columns.filter((c) => !(c in needle.row));
      if (missing.length > 0) throw new Error(`${needle.label}: the row lacks the columns ${missing.join(", ")} of ${note.noteId}`);
      middle(tab.rows, { cells: needle.row, label: needle.label });
    } else if ("section" in needle) {
      middle(note.sections, { ...needle.section, label: needle.label });
    } else if ("source" in needle) {
      middle(note.sources, { ...needle.source, label: needle.label });
    } else {
      const kind = needle.tab.kind;
      note.tabs.push({ type: "sheet", label: needle.tab.label, columns: columnsOf(pack, kind), rows: sheetRows(pack, d, kind, 6), tag: needle.label });
    }
  }
  return [...[...byKind.values()].flat(), ...own];
}

/** The Markdown a Note is created with: its title, then each section under its heading. */
export function markdownOf(note: CorpusNote): string {
  if (note.sections.length === 0) return "";
  return [`# ${note.title}`, ...note.sections.flatMap((s) => [`## ${s.heading}`, s.text])].join("\n\n") + "\n";
}

/** Where each label is: the Note, the tab's position among the Note's added tabs, the item's position. */
export function labelTargets(notes: readonly CorpusNote[]): Map<string, LabelTarget> {
  const targets = new Map<string, LabelTarget>();
  const add = (label: string | undefined, target: LabelTarget): void => {
    if (label === undefined) return;
    if (targets.has(label)) throw new Error(`the label ${label} is used twice`);
    targets.set(label, target);
  };
  for (const note of notes) {
    add(note.label, { kind: "note", noteId: note.noteId });
    note.sections.forEach((s, i) => add(s.label, { kind: "markdown", noteId: note.noteId, section: i, heading: s.heading }));
    note.sources.forEach((s, i) => add(s.label, { kind: "source", noteId: note.noteId, item: i }));
    note.tabs.forEach((tab, t) => {
      add(tab.tag, { kind: "tab", noteId: note.noteId, tab: t });
      if (tab.type === "slides") tab.slides.forEach((s, i) => add(s.label, { kind: "slide", noteId: note.noteId, tab: t, item: i }));
      else tab.rows.forEach((r, i) => add(r.label, { kind: "row", noteId: note.noteId, tab: t, item: i }));
    });
  }
  return targets;
}

export function generateCorpus(seed = DEFAULT_SEED): Corpus {
  const notes: CorpusNote[] = [];
  const queries: LabelledQuery[] = [];
  for (const [k, pack] of PACKS.entries()) {
    // Each language its own stream: adding a needle to one leaves the others' Notes as they were.
    const d = new Draw(random(seed * 7919 + k));
    notes.push(...languageNotes(pack, d));
    pack.queries.forEach((q, i) => queries.push({ ...q, id: `${pack.lang}-${pad(i + 1)}`, lang: pack.lang }));
  }
  const targets = labelTargets(notes);
  for (const q of queries) if (!targets.has(q.expect)) throw new Error(`query ${q.id} expects ${q.expect}, which no item has`);
  return { seed, notes, queries, targets };
}

/** The text a label's item holds (what the index has of it), for checks. */
export function itemText(note: CorpusNote, target: LabelTarget): string {
  switch (target.kind) {
    case "note":
      return note.title;
    case "tab":
      return note.tabs[target.tab]?.label ?? "";
    case "markdown": {
      const s = note.sections[target.section];
      return s === undefined ? "" : `${s.heading}\n${s.text}`;
    }
    case "source": {
      const s = note.sources[target.item];
      return s === undefined ? "" : `${s.title}\n${s.url}\n${s.description}`;
    }
    case "slide": {
      const tab = note.tabs[target.tab];
      const s = tab?.type === "slides" ? tab.slides[target.item] : undefined;
      return s === undefined ? "" : `${s.title}\n${s.body}\n${s.notes}`;
    }
    case "row": {
      const tab = note.tabs[target.tab];
      const r = tab?.type === "sheet" ? tab.rows[target.item] : undefined;
      return r === undefined ? "" : Object.values(r.cells as Cells).map(String).join("\n");
    }
  }
}

/**
 * A filler document for the bench's search rows: an English Note drawn from
 * the corpus's document topics (a title and three to five sections), the
 * same for the same seed and index.
 */
export function fillerDocument(seed: number, index: number): { title: string; markdown: string } {
  const d = new Draw(random(seed * 7919 + 1_000 + index));
  const note = doc(en, d, index);
  return { title: note.title, markdown: markdownOf(note) };
}
