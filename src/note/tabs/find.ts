/**
 * The tab strip (docs/spec.md §1, promise 1): every tab has an exact ID, and a tab is
 * found by that ID only. Never by a type ("slides") or a label ("Q3 deck"):
 * that shortcut picks the first match and writes into the wrong deck after a
 * person reorders or renames. Also the strip's own rules: a new tab's ID and
 * place, positions kept a permutation, fixed tabs that stay.
 */
import type { NoteContext } from "../context.js";
import type { TabSummary } from "../commands.js";
import { limitExceeded, wrongTabType } from "../errors.js";
import { LIMITS } from "../limits.js";
import { fail, ok, type Result } from "../result.js";
import type { NoteMeta, NoteStore, TabRow } from "../store.js";
import { DEFAULT_LABELS, FIXED_TABS, isTabType, newTabId, type AddableTabType } from "./ids.js";

const ID_HINT =
  'Tab IDs look like "slides-9-mh8z1k2a" or "sheet-4-mh8z1k2a" (or "markdown", "files", "sources" for the fixed tabs); call list_note_tabs and pass the id of the tab you mean.';

/** The tab with exactly this ID. Never a type, never a label. */
export function findTab(store: NoteStore, tabId: string): Result<TabRow> {
  const tab = store.tab(tabId);
  if (tab !== null) return ok(tab);
  // Only the message looks further: a type or a label given as an ID is named as such.
  const what = isTabType(tabId) ? "a tab type" : store.tabs().some((t) => t.label === tabId) ? "a tab label" : null;
  return fail({
    code: "tab_not_found",
    message: what === null ? `No tab "${tabId}" in this Note. ${ID_HINT}` : `"${tabId}" is ${what}, not a tab ID. ${ID_HINT}`,
    tab_id: tabId,
    hint: ID_HINT,
  });
}

/** A Slides or Sheet tab, found by exact ID: the fixed tabs cannot be renamed or deleted. */
export function findAddedTab(store: NoteStore, tabId: string, verb: string): Result<TabRow> {
  const found = findTab(store, tabId);
  if (!found.ok) return found;
  const tab = found.value;
  if (tab.type === "slides" || tab.type === "sheet") return found;
  return fail(wrongTabType(tab, ["slides", "sheet"], `The ${tab.type} tab is fixed; it cannot be ${verb}.`));
}

/** A tab as lists show it. Each kind's object is written out whole: a spread followed by new fields costs Node's V8 a new hidden class per object. */
export function summary(tab: TabRow): TabSummary {
  if (tab.type === "slides") return { id: tab.id, type: tab.type, label: tab.label, position: tab.position, slide_count: tab.slide_count };
  if (tab.type === "sheet") return { id: tab.id, type: tab.type, label: tab.label, position: tab.position, row_count: tab.row_count, column_count: tab.columns.length };
  return { id: tab.id, type: tab.type, label: tab.label, position: tab.position };
}

/** Refuses a new tab past the limit; the fixed tabs are never deleted, so every other tab is a Slides or Sheet tab. */
export function roomForTab(meta: NoteMeta): Result<null> {
  if (meta.tab_count - FIXED_TABS.length < LIMITS.tabsPerNote) return ok(null);
  return fail(limitExceeded("tabs_per_note", LIMITS.tabsPerNote, "This Note has as many Slides and Sheet tabs as it may"));
}

/**
 * Adds a tab at the end of the strip with the next ID of this Note: a deck
 * that will hold `slideCount` slides, or a Sheet with its columns that will
 * hold `rowCount` rows. Returns the
 * tab and the Note's meta after it; the caller writes the slides or rows, and
 * commits.
 */
export function appendTab(
  ctx: NoteContext,
  meta: NoteMeta,
  given: { type: AddableTabType; label?: string | undefined; slideCount?: number; rowCount?: number; columns?: readonly string[] },
): { tab: TabRow; meta: NoteMeta } {
  const tab: TabRow = {
    id: newTabId(given.type, meta.next_tab_n, ctx.now()),
    type: given.type,
    label: given.label?.trim() ?? DEFAULT_LABELS[given.type],
    position: meta.tab_count,
    slide_count: given.slideCount ?? 0,
    row_count: given.rowCount ?? 0,
    columns: [...(given.columns ?? [])],
  };
  ctx.store.insertTab(tab);
  return { tab, meta: { ...meta, next_tab_n: meta.next_tab_n + 1, tab_count: meta.tab_count + 1 } };
}

/** Moves a tab to `position` (already checked to be in the strip) and renumbers the tabs between; null when it is there already. */
export function placeTab(store: NoteStore, tabId: string, position: number): TabRow | null {
  const tabs = store.tabs();
  const from = tabs.findIndex((t) => t.id === tabId);
  if (from < 0 || from === position) return null;
  const [moving] = tabs.splice(from, 1);
  if (moving === undefined) return null;
  tabs.splice(position, 0, moving);
  renumber(store, tabs);
  return { ...moving, position };
}

/** Deletes a tab, its slides or rows kept in `trash` (undo.ts), and closes the gap it leaves. */
export function removeTab(store: NoteStore, tabId: string, trash: string): void {
  store.slides.retab(tabId, trash, null);
  store.rows.retab(tabId, trash, null);
  store.deleteTab(tabId);
  renumber(store, store.tabs());
}

/** Writes each tab whose position is not its place in `tabs`, so positions stay 0..n-1. */
function renumber(store: NoteStore, tabs: readonly TabRow[]): void {
  tabs.forEach((tab, position) => {
    if (tab.position !== position) store.updateTab({ ...tab, position });
  });
}
