/**
 * What each item is as a search document (docs/search.md, the table of
 * kinds): its key, the item it names, its title and its text. One function a
 * kind, used by the index (the text as `indexText` folds it), the hit's
 * snippet and `fetch_item` (the text whole), so the three never disagree.
 */
import type { Cells, FileRow, NoteMeta, Slide, SourceRow, TabRow } from "../store.js";
import { FIXED_TABS } from "../tabs/ids.js";
import { docKey, type HitKind } from "./contract.js";
import { indexText } from "./text.js";

/** An item as the search sees it. */
export interface ItemText {
  kind: HitKind;
  /** What the hit's title shows. */
  title: string;
  /** The item's whole text, as `fetch` answers it and the snippet is cut from. */
  text: string;
  /** The text as the index holds it (indexText). */
  index: string;
}

/** A document of the index: its key, the item's own ID (a slide's, row's or tab's; `source-{n}`, `file-{n}`, `section-{n}`, `note`), its indexed text. */
export interface IndexDoc {
  key: number;
  item: string;
  text: string;
}

export function noteText(meta: Pick<NoteMeta, "title">): ItemText {
  return { kind: "note", title: meta.title, text: meta.title, index: indexText(meta.title) };
}

export function tabText(tab: Pick<TabRow, "label">): ItemText {
  return { kind: "tab", title: tab.label, text: tab.label, index: indexText(tab.label) };
}

export function slideText(slide: Pick<Slide, "title" | "body" | "notes">): ItemText {
  const text = [slide.title, slide.body, slide.notes].filter((part) => part !== "").join("\n\n");
  return { kind: "slide", title: slide.title, text, index: indexText(slide.title, slide.body, slide.notes) };
}

/**
 * A row: its first non-empty cell as its title, "column: value" lines as its
 * text; the index holds each cell with its column's name ("Customer Hiroshi
 * Tanaka City Osaka"), so "which customer was in Osaka?" finds the row of the
 * customers Sheet (docs/search.md, "Quality").
 */
export function rowText(cells: Cells): ItemText {
  const values = Object.values(cells).map(String);
  const title = values.find((value) => value.trim() !== "") ?? "";
  const text = Object.entries(cells)
    .map(([column, value]) => `${column}: ${String(value)}`)
    .join("\n");
  return { kind: "row", title, text, index: indexText(...Object.entries(cells).flatMap(([column, value]) => [column, String(value)])) };
}

export function sourceText(source: Pick<SourceRow, "title" | "url" | "description">): ItemText {
  const text = [source.title, source.url, source.description].filter((part) => part !== "").join("\n");
  return { kind: "source", title: source.title, text, index: indexText(source.title, source.url, source.description) };
}

export function fileText(file: Pick<FileRow, "name">): ItemText {
  return { kind: "file", title: file.name, text: file.name, index: indexText(file.name) };
}

/** A Markdown section: at most this many UTF-16 units; a longer one is cut at a line end (or anywhere, for one long line) into several. */
export const SECTION_CHARS = 4_000;

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The last two Markdown texts' sections: a Markdown edit cuts the text before it, which the edit before cut as its text after. */
const recentSections: [string, readonly ItemText[]][] = [];

/** The Markdown as sections: from a heading to the next (headings inside fenced code are text), blank ones left out, each cut to SECTION_CHARS. */
export function markdownSections(markdown: string): readonly ItemText[] {
  const recent = recentSections.find(([text]) => text === markdown);
  if (recent !== undefined) return recent[1];
  const sections = cutSections(markdown);
  recentSections.unshift([markdown, sections]);
  recentSections.length = Math.min(recentSections.length, 2);
  return sections;
}

function cutSections(markdown: string): readonly ItemText[] {
  const sections: { title: string; lines: string[] }[] = [];
  let current: { title: string; lines: string[] } = { title: "", lines: [] };
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const opens = FENCE.exec(line);
    if (fence === null && opens !== null) fence = (opens[1] as string).charAt(0);
    else if (fence !== null && opens !== null && (opens[1] as string).charAt(0) === fence) fence = null;
    const heading = fence === null && opens === null ? HEADING.exec(line) : null;
    if (heading !== null) {
      sections.push(current);
      current = { title: (heading[2] ?? "").trim(), lines: [] };
    }
    current.lines.push(line);
  }
  sections.push(current);
  const out: ItemText[] = [];
  for (const section of sections) {
    const text = section.lines.join("\n");
    if (text.trim() === "") continue;
    for (const part of cutText(text, SECTION_CHARS)) {
      out.push({ kind: "markdown", title: section.title === "" ? "Markdown" : section.title, text: part, index: indexText(part) });
    }
  }
  return Object.freeze(out.map((section) => Object.freeze(section)));
}

/** `text` in pieces of at most `max` units, cut after a line break where one is, never inside a surrogate pair. */
function cutText(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let end = rest.lastIndexOf("\n", max - 1) + 1;
    if (end <= 0) end = /[\ud800-\udbff]/.test(rest.charAt(max - 1)) ? max - 1 : max;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest !== "") parts.push(rest);
  return parts;
}

/** The `n` of an ID spelled `{prefix}-{n}-…` (slides, rows, added tabs), or null. */
export function idNumber(id: string, prefixes: readonly string[]): number | null {
  const match = /^([a-z]+)-(\d{1,15})-/.exec(id);
  if (match === null || !prefixes.includes(match[1] as string)) return null;
  const n = Number(match[2]);
  return Number.isSafeInteger(n * 8) ? n : null;
}

export function slideKey(id: string): number | null {
  const n = idNumber(id, ["slide"]);
  return n === null ? null : docKey("slide", n);
}

export function rowKey(id: string): number | null {
  const n = idNumber(id, ["row"]);
  return n === null ? null : docKey("row", n);
}

export function tabKey(id: string): number | null {
  const fixed = (FIXED_TABS as readonly string[]).indexOf(id);
  if (fixed >= 0) return docKey("fixed_tab", fixed);
  const n = idNumber(id, ["slides", "sheet"]);
  return n === null ? null : docKey("tab", n);
}

export const NOTE_KEY = docKey("note", 0);
export const NOTE_ITEM = "note";

export function sourceKey(seq: number): number {
  return docKey("source", seq);
}

export function fileKey(seq: number): number {
  return docKey("file", seq);
}

export function sectionKey(ordinal: number): number {
  return docKey("markdown", ordinal);
}

/** Every document of a Note's content, as the index holds them: what a migration backfills, a new member's directory receives, and a test rebuilds. */
export function noteDocuments(content: {
  meta: Pick<NoteMeta, "title"> | null;
  tabs: readonly TabRow[];
  slides: (tabId: string) => readonly Slide[];
  rows: (tabId: string) => readonly { id: string; cells: Cells }[];
  markdown: string;
  sources: readonly SourceRow[];
  files: readonly FileRow[];
}): IndexDoc[] {
  const docs: IndexDoc[] = [];
  const add = (key: number | null, item: string, text: ItemText) => {
    if (key !== null) docs.push({ key, item, text: text.index });
  };
  if (content.meta !== null) add(NOTE_KEY, NOTE_ITEM, noteText(content.meta));
  for (const tab of content.tabs) {
    add(tabKey(tab.id), tab.id, tabText(tab));
    if (tab.type === "slides") for (const slide of content.slides(tab.id)) add(slideKey(slide.id), slide.id, slideText(slide));
    if (tab.type === "sheet") for (const row of content.rows(tab.id)) add(rowKey(row.id), row.id, rowText(row.cells));
  }
  markdownSections(content.markdown).forEach((section, i) => add(sectionKey(i), `section-${i}`, section));
  for (const source of content.sources) add(sourceKey(source.seq), `source-${source.seq}`, sourceText(source));
  for (const file of content.files) add(fileKey(file.seq), `file-${file.seq}`, fileText(file));
  return docs.sort((a, b) => a.key - b.key);
}
