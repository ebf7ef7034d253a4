/**
 * The Note's own search commands (docs/search.md): `search`
 * ranks its items by the words of a query, `describe_hits` describes the
 * items a directory ranked (fresh titles and snippets, access checked), and
 * `fetch_item` answers one hit's whole text, bounded. Each is a read: the
 * caller must be a member, and a connector needs the Note approved.
 */
import type { Caller } from "../commands.js";
import type { NoteContext } from "../context.js";
import { decodeSearchCursor, encodeSearchCursor, SEARCH_CURSOR_LENGTH } from "../cursor.js";
import { noteNotFound } from "../errors.js";
import { LIMITS } from "../limits.js";
import { openNote } from "../pipeline/access.js";
import { fail, ok, type Result } from "../result.js";
import type { NoteMeta, NoteStore } from "../store.js";
import { isTrash } from "../undo.js";
import { Checks, fields } from "../validate.js";
import { FETCH_CHARS, keyParts, SNIPPET_CHARS, type FetchedItem, type HitIds, type HitKind, type SearchHit } from "./contract.js";
import { fileText, markdownSections, noteText, rowText, slideText, sourceText, tabText, type ItemText } from "./documents.js";
import { checkSearchLimit, checkSearchQuery } from "./query.js";
import { queryTerms, snippet } from "./text.js";

/** A page of this Note's hits. */
export interface NoteSearchPage {
  note_id: string;
  version: number;
  hits: SearchHit[];
  next_cursor: string | null;
}

/** The hits a directory ranked, described by the Note: each with the key it was asked for. */
export interface DescribedHits {
  note_id: string;
  version: number;
  hits: (SearchHit & { key: number })[];
}

/** A fetch ID as a caller may send it: a Note ID, a tab ID and an item ID. */
const FETCH_ID_LENGTH = LIMITS.noteIdLength + LIMITS.tabIdLength + LIMITS.itemIdLength + 2;

/** `search`: a page of this Note's items holding any of the query's words, best first. */
export function searchNote(ctx: NoteContext, caller: Caller, input: unknown): Result<NoteSearchPage> {
  const given = fields(input);
  if (!given.ok) return given;
  const { query, limit, cursor } = given.value;
  const checks = new Checks();
  checks.onlyFields(given.value, ["query", "limit", "cursor"]);
  checkSearchQuery(checks, query);
  checkSearchLimit(checks, limit);
  if (cursor !== undefined) checks.text("cursor", cursor, SEARCH_CURSOR_LENGTH, { nonBlank: true });
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const text = query as string;
  const after = cursor === undefined ? null : decodeSearchCursor(ctx.id, text, cursor as string);
  if (cursor !== undefined && after === null) {
    return fail({ code: "invalid_arguments", message: "Invalid arguments. cursor: not a cursor search issued for this Note and query", issues: [{ path: "cursor", problem: "not a cursor search issued for this Note and query; pass next_cursor exactly as returned, with the same query, or omit it to start over" }] });
  }
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  const size = (limit as number | undefined) ?? LIMITS.searchPageDefault;
  const found = ctx.store.searchQuery(queryTerms(text), after, size + 1);
  const page = found.slice(0, size);
  const describer = new Describer(ctx, meta, text);
  const hits = page.flatMap((doc) => {
    const hit = describer.hit(doc.key, doc.item);
    return hit === null ? [] : [hit];
  });
  const last = page.at(-1);
  const next = found.length > size && last !== undefined ? encodeSearchCursor(ctx.id, text, { score: last.score, key: last.key }) : null;
  return ok({ note_id: ctx.id, version: meta.version, hits, next_cursor: next });
}

/** `describe_hits`: the items of these keys the Note still holds, in the order given, each described for this query. */
export function describeHits(ctx: NoteContext, caller: Caller, input: unknown): Result<DescribedHits> {
  const given = fields(input);
  if (!given.ok) return given;
  const { keys, query } = given.value;
  const checks = new Checks();
  checks.onlyFields(given.value, ["keys", "query"]);
  checkSearchQuery(checks, query);
  if (!Array.isArray(keys)) checks.add("keys", keys === undefined ? "required" : "must be a list of document keys");
  else if (keys.length === 0 || keys.length > LIMITS.searchPageSize) checks.add("keys", `must hold 1 to ${LIMITS.searchPageSize} keys`);
  else keys.forEach((key: unknown, i) => checks.integer(`keys[${i}]`, key, 0, Number.MAX_SAFE_INTEGER, true));
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  const wanted = keys as number[];
  const docs = new Map(ctx.store.searchDocs(wanted).map((doc) => [doc.key, doc]));
  const describer = new Describer(ctx, meta, query as string);
  const seen = new Set<number>();
  const hits: DescribedHits["hits"] = [];
  for (const key of wanted) {
    const doc = docs.get(key);
    if (doc === undefined || seen.has(key)) continue;
    seen.add(key);
    const hit = describer.hit(key, doc.item);
    if (hit !== null) hits.push({ ...hit, key });
  }
  return ok({ note_id: ctx.id, version: meta.version, hits });
}

/** Hits of one query in one Note: each item read by its own ID (the Markdown once a page). */
class Describer {
  #markdown: readonly ItemText[] | undefined;

  constructor(
    private readonly ctx: NoteContext,
    private readonly meta: NoteMeta,
    private readonly query: string,
  ) {}

  /** The hit of the document `key` naming `item`, or null when the Note no longer holds that item. */
  hit(key: number, item: string): SearchHit | null {
    const parts = keyParts(key);
    if (parts === null) return null;
    const located = locate(this.ctx.store, this.meta, parts.code === "fixed_tab" ? "tab" : parts.code, item, () => (this.#markdown ??= markdownSections(this.ctx.store.markdown())));
    if (located === null) return null;
    const { ids, text } = located;
    return {
      id: fetchId(this.ctx.id, ids, text.kind),
      kind: text.kind,
      note_id: this.ctx.id,
      ...ids,
      title: text.title,
      note_title: this.meta.title,
      snippet: snippet(text.text, this.query, SNIPPET_CHARS),
    };
  }
}

type LocatedIds = Omit<HitIds, "note_id">;

/** An item of the Note by its kind and ID, with its text; null when it is not there (or waits in a trash). */
function locate(store: NoteStore, meta: NoteMeta, kind: HitKind, item: string, sections: () => readonly ItemText[]): { ids: LocatedIds; text: ItemText } | null {
  switch (kind) {
    case "note":
      return { ids: {}, text: noteText(meta) };
    case "tab": {
      const tab = store.tab(item);
      return tab === null ? null : { ids: { tab_id: tab.id }, text: tabText(tab) };
    }
    case "slide": {
      const slide = store.slides.find(item);
      return slide === null || isTrash(slide.tab_id) ? null : { ids: { tab_id: slide.tab_id, slide_id: slide.id }, text: slideText(slide) };
    }
    case "row": {
      const row = store.rows.find(item);
      return row === null || isTrash(row.tab_id) ? null : { ids: { tab_id: row.tab_id, row_id: row.id }, text: rowText(row.cells) };
    }
    case "markdown": {
      const n = sectionNumber(item);
      const section = n === null ? undefined : sections()[n];
      return section === undefined ? null : { ids: { tab_id: "markdown", section: n as number }, text: section };
    }
    case "source": {
      const seq = attachmentNumber(item, "source");
      const source = seq === null ? null : store.attachment("sources", seq);
      return source === null ? null : { ids: { tab_id: "sources", source_id: item }, text: sourceText(source) };
    }
    case "file": {
      const seq = attachmentNumber(item, "file");
      const file = seq === null ? null : store.attachment("files", seq);
      return file === null ? null : { ids: { tab_id: "files", file_id: item }, text: fileText(file) };
    }
  }
}

function sectionNumber(item: string): number | null {
  const match = /^section-(\d{1,9})$/.exec(item);
  return match === null ? null : Number(match[1]);
}

function attachmentNumber(item: string, prefix: "source" | "file"): number | null {
  const match = new RegExp(`^${prefix}-(\\d{1,15})$`).exec(item);
  return match === null ? null : Number(match[1]);
}

/** What `fetch` takes for a hit (contract.ts, SearchHit.id). */
function fetchId(noteId: string, ids: LocatedIds, kind: HitKind): string {
  if (kind === "note") return noteId;
  if (kind === "markdown") return `${noteId}/markdown/section-${ids.section ?? 0}`;
  const itemId = ids.slide_id ?? ids.row_id ?? ids.source_id ?? ids.file_id;
  return itemId === undefined ? `${noteId}/${ids.tab_id ?? ""}` : `${noteId}/${ids.tab_id ?? ""}/${itemId}`;
}

/** `fetch_item`: one hit's whole text by its fetch ID, bounded by FETCH_CHARS. */
export function fetchItem(ctx: NoteContext, caller: Caller, input: unknown): Result<FetchedItem> {
  const given = fields(input);
  if (!given.ok) return given;
  const checks = new Checks();
  checks.onlyFields(given.value, ["id"]);
  checks.text("id", given.value.id, FETCH_ID_LENGTH, { required: true, nonBlank: true, oneLine: true, trimmed: true });
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const id = given.value.id as string;
  const parts = id.split("/");
  // Another Note's ID is no item of this one: as for a Note the caller cannot use.
  if (parts[0] !== ctx.id) return fail(noteNotFound(parts[0] ?? ""));
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  const { store } = ctx;
  const gone = () =>
    fail({
      code: "item_not_found" as const,
      message: `No item "${id}" in this Note (deleted since, or never one). Search again for what you need: search's hits carry the ids fetch takes.`,
      id,
    });
  let whole: { ids: LocatedIds; text: ItemText } | null;
  if (parts.length === 1) whole = { ids: {}, text: { kind: "note", title: meta.title, text: outline(store, meta), index: "" } };
  else if (parts.length === 2) whole = tabListing(store, parts[1] as string);
  else if (parts.length === 3) {
    const [, tabId, itemId] = parts as [string, string, string];
    const kind: HitKind | null =
      tabId === "markdown" ? "markdown" : tabId === "sources" ? "source" : tabId === "files" ? "file" : itemId.startsWith("slide-") ? "slide" : itemId.startsWith("row-") ? "row" : null;
    whole = kind === null ? null : locate(store, meta, kind, itemId, () => markdownSections(store.markdown()));
    if (whole !== null && whole.ids.tab_id !== tabId) whole = null;
  } else whole = null;
  if (whole === null) return gone();
  const { ids, text } = whole;
  const truncated = text.text.length > FETCH_CHARS;
  const end = truncated && /[\ud800-\udbff]/.test(text.text.charAt(FETCH_CHARS - 1)) ? FETCH_CHARS - 1 : FETCH_CHARS;
  return ok({
    id,
    title: text.title,
    text: truncated ? text.text.slice(0, end) : text.text,
    metadata: { note_id: ctx.id, ...ids, kind: text.kind, version: meta.version, note_title: meta.title, truncated, length: text.text.length },
  });
}

/** Lines of text, read until they pass FETCH_CHARS (one more character tells that the fetch is cut). */
class Lines {
  readonly lines: string[] = [];
  #chars = 0;

  add(line: string): boolean {
    this.lines.push(line);
    this.#chars += line.length + 1;
    return this.#chars <= FETCH_CHARS;
  }
  get full(): boolean {
    return this.#chars > FETCH_CHARS;
  }
  text(): string {
    return this.lines.join("\n");
  }
}

/** Up to FETCH_CHARS of the items' titles of a deck or Sheet, a page at a time: never more than the fetch answers. */
function itemTitles(store: NoteStore, tabId: string, kind: "slides" | "sheet", lines: Lines, indent: string): void {
  let after: number | null = null;
  let n = 0;
  while (!lines.full) {
    const page: { key: number; title: string }[] =
      kind === "slides"
        ? store.slides.page(tabId, after, LIMITS.slidesPageSize).map((s) => ({ key: s.key, title: s.title }))
        : store.rows.page(tabId, after, LIMITS.slidesPageSize).map((r) => ({ key: r.key, title: rowText(r.cells).title }));
    for (const item of page) if (!lines.add(`${indent}${++n}. ${item.title}`)) return;
    if (page.length < LIMITS.slidesPageSize) return;
    after = (page.at(-1) as { key: number }).key;
  }
}

/** The Note's outline: its title, then each tab's label, type and ID, a deck's slide titles under it. */
function outline(store: NoteStore, meta: NoteMeta): string {
  const lines = new Lines();
  lines.add(`# ${meta.title}`);
  for (const tab of store.tabs()) {
    if (!lines.add(`## ${tab.label} (${tabDescription(tab, meta)}; ${tab.id})`)) break;
    if (tab.type === "slides") itemTitles(store, tab.id, "slides", lines, "");
  }
  return lines.text();
}

function tabDescription(tab: { type: string; slide_count: number; row_count: number; columns: string[] }, meta: NoteMeta): string {
  switch (tab.type) {
    case "slides":
      return `slides, ${tab.slide_count} ${tab.slide_count === 1 ? "slide" : "slides"}`;
    case "sheet":
      return `Sheet, ${tab.row_count} rows; columns: ${tab.columns.join(", ")}`;
    case "sources":
      return `${meta.source_count} sources`;
    case "files":
      return `${meta.file_count} files`;
    default:
      return tab.type;
  }
}

/** A tab: its label, then its items' titles (a deck's slides, a Sheet's rows' first cells, the Markdown's headings, the sources and files), bounded. */
function tabListing(store: NoteStore, tabId: string): { ids: LocatedIds; text: ItemText } | null {
  const tab = store.tab(tabId);
  if (tab === null) return null;
  const lines = new Lines();
  lines.add(tab.label);
  if (tab.type === "slides" || tab.type === "sheet") {
    if (tab.type === "sheet") lines.add(`Columns: ${tab.columns.join(", ")}`);
    itemTitles(store, tab.id, tab.type, lines, "");
  } else if (tab.type === "markdown") {
    markdownSections(store.markdown()).every((section, i) => lines.add(`${i + 1}. ${section.title}`));
  } else {
    let after = 0;
    while (!lines.full) {
      const page = tab.type === "sources" ? store.attachments("sources", after, LIMITS.pageSize) : store.attachments("files", after, LIMITS.pageSize);
      for (const row of page) if (!lines.add(`${"title" in row ? `${row.title} (${row.url})` : row.name} [${tab.type === "sources" ? "source" : "file"}-${row.seq}]`)) break;
      if (page.length < LIMITS.pageSize) break;
      after = (page.at(-1) as { seq: number }).seq;
    }
  }
  return { ids: { tab_id: tab.id }, text: { ...tabText(tab), text: lines.text() } };
}
