/**
 * @module
 * The Note's search box: the person searches this Note's slides, rows,
 * Markdown, sources, files and tabs (`GET /api/v1/search?note_id=`), and each
 * hit links to its tab (`?tab=`), which the page opens in place (app.ts
 * follows such links), then brings the slide or row found into view. Every
 * hit's text goes in as text.
 */
import { errorInWords, request } from "./api.js";
import { $, h } from "./dom.js";
import { noteId } from "./state.js";

/** A hit as the API answers it (docs/api.md, "Searching"). */
interface Hit {
  id: string;
  kind: "note" | "tab" | "slide" | "row" | "markdown" | "source" | "file";
  title: string;
  note_title: string;
  snippet: string;
  url: string;
  tab_id?: string;
  slide_id?: string;
  row_id?: string;
  source_id?: string;
  file_id?: string;
}

/** Hits per page of the page's search. */
export const SEARCH_PAGE_SIZE = 20;

const KINDS: Record<Hit["kind"], string> = { note: "Note", tab: "Tab", slide: "Slide", row: "Row", markdown: "Markdown", source: "Source", file: "File" };
/** The page's fixed tabs that show a kind of hit without a tab of its own. */
const FIXED_TAB: Partial<Record<Hit["kind"], string>> = { markdown: "markdown", source: "sources", file: "files" };

let query = "";
let next: string | null = null;
let shown = 0;
/** Each search's number: an answer to an older one (the person searched again since) is dropped. */
let searches = 0;

export function bindSearch(): void {
  const form = $<HTMLFormElement>("search-note");
  const field = form.elements.namedItem("q") as HTMLInputElement;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    query = field.value;
    if (query.trim() === "") {
      clear();
      $("search-summary").textContent = "Type the words to find.";
      return;
    }
    void run(null);
  });
  // Escape in the box puts the results away.
  field.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && field.value === "") clear();
  });
  $("search-more").addEventListener("click", () => {
    if (next !== null) void run(next);
  });
}

function clear(): void {
  searches += 1;
  next = null;
  shown = 0;
  $("search-results").replaceChildren();
  $("search-more").hidden = true;
  $("search-summary").textContent = "";
}

async function run(cursor: string | null): Promise<void> {
  const mine = ++searches;
  const params = new URLSearchParams({ q: query, note_id: noteId, limit: String(SEARCH_PAGE_SIZE) });
  if (cursor !== null) params.set("cursor", cursor);
  $("search-summary").textContent = "Searching…";
  const answer = await request<{ hits: Hit[]; next_cursor: string | null }>("GET", `/api/v1/search?${params.toString()}`);
  if (mine !== searches) return;
  if (!answer.ok) {
    if (answer.status !== 401) $("search-summary").textContent = `Could not search: ${errorInWords(answer.error)}`;
    return;
  }
  const list = $("search-results");
  if (cursor === null) {
    list.replaceChildren();
    shown = 0;
  }
  const items = answer.value.hits.map(hitItem);
  list.append(...items);
  shown += items.length;
  next = answer.value.next_cursor;
  $("search-more").hidden = next === null;
  $("search-summary").textContent =
    shown === 0 ? `Nothing in this Note matches “${query}”.` : `${shown} ${shown === 1 ? "hit" : "hits"} for “${query}”${next === null ? "" : " so far"}.`;
  // More hits: the keyboard goes to the first new one, not back to the top.
  if (cursor !== null) items[0]?.querySelector("a")?.focus();
}

function hitItem(hit: Hit): HTMLLIElement {
  const tabId = hit.tab_id ?? FIXED_TAB[hit.kind];
  const title = h("bdi", {}, hit.title === "" ? "(untitled)" : hit.title);
  const head = tabId === undefined ? h("strong", {}, title) : h("a", { href: `?tab=${encodeURIComponent(tabId)}` }, title);
  if (tabId !== undefined) head.addEventListener("click", () => reveal(hit));
  return h(
    "li",
    { "data-hit-id": hit.id },
    h("span", { class: "badge" }, KINDS[hit.kind] ?? hit.kind),
    " ",
    head,
    " ",
    h("code", {}, itemIdOf(hit)),
    h("p", { class: "snippet", dir: "auto" }, hit.snippet),
  );
}

/** The hit's own ID, as the Note names it: the slide's, row's, source's or file's, else the tab's, else the Note's. */
function itemIdOf(hit: Hit): string {
  return hit.slide_id ?? hit.row_id ?? hit.source_id ?? hit.file_id ?? hit.tab_id ?? hit.id;
}

/** Once its tab is open, the slide or row found is brought into view and marked for a moment (the Sheet's rows come a page at a time: a row not on the first page stays where it is). */
function reveal(hit: Hit): void {
  const selector =
    hit.slide_id !== undefined ? `[data-slide-id="${CSS.escape(hit.slide_id)}"]` : hit.row_id !== undefined ? `tr[data-row-id="${CSS.escape(hit.row_id)}"]` : null;
  if (selector === null) return;
  const started = Date.now();
  const look = () => {
    const element = document.querySelector<HTMLElement>(`#tab-panel ${selector}`);
    if (element === null) {
      if (Date.now() - started < 5_000) setTimeout(look, 100);
      return;
    }
    element.scrollIntoView({ block: "center" });
    element.classList.add("found");
    setTimeout(() => element.classList.remove("found"), 4_000);
  };
  setTimeout(look, 0);
}
