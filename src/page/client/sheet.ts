/**
 * @module
 * A Sheet tab's panel: its rows a page at a time (`GET /tabs/:tab_id`), each
 * with its exact ID.
 */
import { api } from "./api.js";
import { $, h, say } from "./dom.js";
import { page } from "./state.js";
import type { Tab } from "./types.js";

export interface SheetPage {
  columns: string[];
  rows: { id: string; index: number; cells: Record<string, string | number> }[];
  next_cursor: string | null;
}

/** Reads the Sheet's next page (from `page.nextCursor`) and appends its rows. */
export async function loadSheetPage(tab: Tab): Promise<void> {
  const cursor = page.nextCursor === null ? "" : `&cursor=${encodeURIComponent(page.nextCursor)}`;
  const answer = await api<SheetPage>("GET", `/tabs/${encodeURIComponent(tab.id)}?limit=100${cursor}`);
  if (page.selected !== tab.id) return;
  if (!answer.ok) return say(`Could not read the Sheet: ${answer.error.message}`);
  const content = $("tab-content");
  const { columns, rows } = answer.value;
  let body = content.querySelector("tbody");
  if (body === null) {
    body = h("tbody");
    const head = h("tr", {}, h("th", { scope: "col" }, "#"), ...columns.map((column) => h("th", { scope: "col" }, column)));
    content.replaceChildren(h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `${tab.label} rows` }, h("table", {}, h("thead", {}, head), body)));
  }
  body.append(
    ...rows.map((row) => h("tr", { "data-row-id": row.id }, h("th", { scope: "row" }, String(row.index + 1)), ...columns.map((column) => h("td", {}, String(row.cells[column] ?? ""))))),
  );
  if (rows.length === 0 && page.nextCursor === null) content.append(h("p", { class: "hint" }, "No rows yet."));
  page.nextCursor = answer.value.next_cursor;
}
