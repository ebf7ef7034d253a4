/**
 * The operations on the tab strip: the agent lists, reads and creates tabs;
 * the person also adds a tab where they like, renames, moves and deletes.
 * Every one names an existing tab by its exact ID (tabs.ts).
 */
import { openNote } from "../pipeline/access.js";
import type { Caller, Input, TabContent, TabList } from "../commands.js";
import type { NoteContext } from "../context.js";
import { invalidArguments, wrongTabType } from "../errors.js";
import { decodeItemsCursor, encodeItemsCursor, ITEMS_CURSOR_LENGTH, type ItemsCursor } from "../cursor.js";
import { asGiven, type KeyedWrite } from "../pipeline/keyed-write.js";
import { LIMITS } from "../limits.js";
import type { PersonChange } from "../pipeline/person-change.js";
import { fail, ok, type Result } from "../result.js";
import { newRows, unknownColumns } from "./sheets.js";
import { newSlides, numbered } from "./slides.js";
import type { Keyed, NoteStore, TabRow } from "../store.js";
import { ADDABLE_TAB_TYPES } from "./ids.js";
import { appendTab, findAddedTab, findTab, placeTab, removeTab, roomForTab, summary } from "./find.js";
import { Checks, fields, noFields } from "../validate.js";
import { trashOf } from "../undo.js";
import { nextVersion } from "../pipeline/version.js";

/** `list_note_tabs`: every tab in strip order, with the version a write must carry. */
export function listTabs(ctx: NoteContext, caller: Caller, input: unknown): Result<TabList> {
  const given = noFields(input);
  if (!given.ok) return given;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  return ok({ note_id: ctx.id, title: meta.title, version: meta.version, tabs: ctx.store.tabs().map(summary) });
}

/**
 * `read_note_tab`: by exact tab ID, a page of a deck's slides (`limit`,
 * default 50) or of a Sheet's rows (default 100), from `cursor`; or the whole
 * Markdown text.
 */
export function readTab(ctx: NoteContext, caller: Caller, input: unknown): Result<TabContent> {
  const given = fields(input);
  if (!given.ok) return given;
  const { tab_id: tabId, limit, cursor } = given.value;
  const checks = new Checks();
  checks.onlyFields(given.value, ["tab_id", "limit", "cursor"]);
  checks.tabId("tab_id", tabId);
  checks.integer("limit", limit, 1, LIMITS.rowsPageSize);
  if (cursor !== undefined) checks.text("cursor", cursor, ITEMS_CURSOR_LENGTH, { nonBlank: true });
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const found = findTab(ctx.store, tabId as string);
  if (!found.ok) return found;
  const tab = found.value;
  const { version } = opened.value;
  if (tab.type === "slides" || tab.type === "sheet") {
    const kind = tab.type === "slides" ? "slides" : "rows";
    const max = tab.type === "slides" ? LIMITS.slidesPageSize : LIMITS.rowsPageSize;
    if (typeof limit === "number" && limit > max) return fail(invalidArguments([{ path: "limit", problem: `must be at most ${max} for a ${tab.type} tab` }]));
    const from = cursor === undefined ? { after: null, count: 0 } : resume(ctx.store, tab, kind, decodeItemsCursor(ctx.id, tab.id, kind, cursor as string));
    if (from === null) {
      return fail(invalidArguments([{ path: "cursor", problem: "not a cursor read_note_tab issued for this tab; pass next_cursor exactly as returned, or omit it to start over" }]));
    }
    const cursorAfter = (last: { key: number; id: string } | null, count: number) =>
      last === null ? null : encodeItemsCursor(ctx.id, tab.id, kind, { after: last.key, count, lastId: last.id });
    const next = (page: readonly Keyed<{ id: string }>[], more: boolean) => cursorAfter(more ? (page.at(-1) ?? null) : null, from.count + page.length);
    if (tab.type === "sheet") {
      const { page, more } = fit(ctx.store.rows.page(tab.id, from.after, ((limit as number | undefined) ?? LIMITS.rowsPageDefault) + 1), limit, LIMITS.rowsPageDefault, (row) => JSON.stringify(row.cells).length);
      const rows = page.map((row, i) => ({ id: row.id, index: from.count + i, cells: row.cells }));
      return ok({ note_id: ctx.id, version, tab: summary(tab), columns: tab.columns, rows, next_cursor: next(page, more) });
    }
    const { page, more } = fit(ctx.store.slides.page(tab.id, from.after, ((limit as number | undefined) ?? LIMITS.slidesPageSize) + 1), limit, LIMITS.slidesPageSize, (slide) => slide.title.length + slide.body.length + slide.notes.length);
    return ok({ note_id: ctx.id, version, tab: summary(tab), slides: numbered(page, from.count), next_cursor: next(page, more) });
  }
  if (tab.type === "markdown") {
    const paging = (["limit", "cursor"] as const).filter((name) => given.value[name] !== undefined);
    if (paging.length > 0) return fail(invalidArguments(paging.map((path) => ({ path, problem: "pages a slides or Sheet tab only; a markdown tab is read whole" }))));
    return ok({ note_id: ctx.id, version, tab: summary(tab), text: ctx.store.markdown() });
  }
  return fail(wrongTabType(tab, ["slides", "sheet", "markdown"], `Tab "${tab.id}" is a ${tab.type} tab; read_note_tab reads slides, Sheet and markdown tabs. Use list_note_attachments for its items.`));
}

/**
 * A page from `read` (up to `limit` items, and one more that tells whether
 * another page follows): fewer when their content passes LIMITS.pageChars,
 * never fewer than one, so one answer stays what a client can take.
 */
function fit<T>(read: readonly T[], limit: unknown, byDefault: number, chars: (item: T) => number): { page: T[]; more: boolean } {
  const size = typeof limit === "number" ? limit : byDefault;
  const page: T[] = [];
  let total = 0;
  for (const item of read.slice(0, size)) {
    total += chars(item);
    if (page.length > 0 && total > LIMITS.pageChars) break;
    page.push(item);
  }
  return { page, more: read.length > page.length };
}

/**
 * Where a page after this cursor starts: after its last item, wherever that
 * item's key is now (a person's move that found no free key gives the whole
 * tab new keys: src/note/tabs/order.ts). When that item is gone, from the key it
 * had, inclusive: an item appended since may hold that very key, and the page
 * had not shown it.
 */
function resume(store: NoteStore, tab: TabRow, kind: "slides" | "rows", cursor: ItemsCursor | null): { after: number; count: number } | null {
  if (cursor === null) return null;
  const last = (kind === "slides" ? store.slides : store.rows).find(cursor.lastId);
  return { after: last !== null && last.tab_id === tab.id ? last.key : cursor.after - 1, count: cursor.count };
}

/** `create_note_tab`: a Slides tab with an optional outline, or a Sheet with optional columns and rows, at the end of the strip. */
export const CREATE_TAB: KeyedWrite<"create_tab", Input<"create_tab">, Input<"create_tab">> = {
  tool: "create_tab",
  fields: ["tab_type", "label", "slides"],
  laterFields: ["columns", "rows"],
  validate: (i, checks) => {
    checks.oneOf("tab_type", i.tab_type, ADDABLE_TAB_TYPES);
    checks.label("label", i.label, false);
    // An empty deck omits `slides`; an empty list is a mistake more often than a choice. So for columns and rows.
    if (i.slides !== undefined) {
      checks.slides("slides", i.slides, 1, LIMITS.slidesPerCall);
      if (i.tab_type === "sheet") checks.add("slides", "only a slides tab can be created with slides; a Sheet takes columns and rows");
    }
    if (i.columns !== undefined) {
      checks.columns("columns", i.columns, 1, LIMITS.columnsPerSheet);
      if (i.tab_type === "slides") checks.add("columns", "only a Sheet can be created with columns");
    }
    if (i.rows !== undefined) {
      checks.rows("rows", i.rows, 1, LIMITS.rowsPerCall);
      if (i.tab_type === "slides") checks.add("rows", "only a Sheet can be created with rows");
      else if (i.columns === undefined) checks.add("rows", "rows need `columns`: name the Sheet's columns in this call");
      else if (Array.isArray(i.rows) && Array.isArray(i.columns)) {
        const columns = i.columns.filter((name): name is string => typeof name === "string");
        // A row that is no object is named by checks.rows already; it stays in the list, as {}, so the others keep their index.
        const rows = i.rows.map((row: unknown) => (typeof row === "object" && row !== null && !Array.isArray(row) ? (row as Record<string, unknown>) : {}));
        for (const issue of unknownColumns("rows", rows, columns, true)) checks.add(issue.path, issue.problem);
      }
    }
  },
  prepare: asGiven,
  apply: (ctx, meta, i, version) => {
    const room = roomForTab(meta);
    if (!room.ok) return room;
    if (i.tab_type === "sheet") {
      const columns = i.columns ?? [];
      const { rows, meta: identified } = newRows(ctx.now(), meta, i.rows ?? [], columns, null);
      const { tab, meta: after } = appendTab(ctx, identified, { type: "sheet", label: i.label, columns, rowCount: rows.length });
      if (rows.length > 0) ctx.store.rows.insert(tab.id, rows);
      // Written out whole, not spread from a common part: see summary().
      const result = {
        note_id: ctx.id, tab_id: tab.id, label: tab.label, position: tab.position, version, replayed: false, arguments_differ: false,
        tab_type: "sheet" as const, columns, row_count: rows.length, row_ids: rows.map((row) => row.id),
      };
      return ok({ commit: true, meta: after, result, undo: [{ do: "tab_add" as const, tab }] });
    }
    const { slides, meta: identified } = newSlides(ctx.now(), meta, i.slides ?? [], null);
    const { tab, meta: after } = appendTab(ctx, identified, { type: "slides", label: i.label, slideCount: slides.length });
    if (slides.length > 0) ctx.store.slides.insert(tab.id, slides);
    const result = {
      note_id: ctx.id, tab_id: tab.id, label: tab.label, position: tab.position, version, replayed: false, arguments_differ: false,
      tab_type: "slides" as const, slide_count: slides.length, slide_ids: slides.map((slide) => slide.id),
    };
    return ok({ commit: true, meta: after, result, undo: [{ do: "tab_add" as const, tab }] });
  },
};

/** The person adds a tab, at the end or at `position`. */
export const ADD_TAB: PersonChange<Input<"add_tab">> = {
  name: "add_tab",
  fields: ["tab_type", "label", "position"],
  validate: (i, checks) => {
    checks.oneOf("tab_type", i.tab_type, ADDABLE_TAB_TYPES);
    checks.label("label", i.label, false);
    // The strip's length is known only once the Note is open: see apply.
    checks.integer("position", i.position, 0, Number.MAX_SAFE_INTEGER);
  },
  apply: (ctx, meta, i) => {
    // The new tab's place can be anywhere from the first to just after the last tab.
    if (i.position !== undefined && i.position > meta.tab_count) {
      return fail(invalidArguments([{ path: "position", problem: `must be at most ${meta.tab_count}` }]));
    }
    const room = roomForTab(meta);
    if (!room.ok) return room;
    const added = appendTab(ctx, meta, { type: i.tab_type, label: i.label });
    const placed = i.position === undefined ? null : placeTab(ctx.store, added.tab.id, i.position);
    const tab = placed ?? added.tab;
    return ok({ meta: added.meta, tab: summary(tab), undo: [{ do: "tab_add" as const, tab }] });
  },
};

export const RENAME_TAB: PersonChange<Input<"rename_tab">> = {
  name: "rename_tab",
  fields: ["tab_id", "label"],
  validate: (i, checks) => {
    checks.tabId("tab_id", i.tab_id);
    checks.label("label", i.label, true);
  },
  apply: (ctx, _meta, i) => {
    const found = findAddedTab(ctx.store, i.tab_id, "renamed");
    if (!found.ok) return found;
    const label = i.label.trim();
    if (found.value.label === label) return ok("unchanged");
    const renamed = { ...found.value, label };
    ctx.store.updateTab(renamed);
    return ok({ tab: summary(renamed), names: { tab_label_before: found.value.label }, undo: [{ do: "tab_label" as const, tab: renamed.id, before: found.value.label, after: label }] });
  },
};

export const MOVE_TAB: PersonChange<Input<"move_tab">> = {
  name: "move_tab",
  fields: ["tab_id", "position"],
  validate: (i, checks) => {
    checks.tabId("tab_id", i.tab_id);
    checks.integer("position", i.position, 0, Number.MAX_SAFE_INTEGER, true);
  },
  apply: (ctx, meta, i) => {
    const found = findTab(ctx.store, i.tab_id);
    if (!found.ok) return found;
    if (i.position >= meta.tab_count) return fail(invalidArguments([{ path: "position", problem: `must be at most ${meta.tab_count - 1}` }]));
    const moved = placeTab(ctx.store, i.tab_id, i.position);
    return moved === null ? ok("unchanged") : ok({ tab: summary(moved), undo: [{ do: "tab_place" as const, tab: moved.id, before: found.value.position, after: moved.position }] });
  },
};

export const DELETE_TAB: PersonChange<Input<"delete_tab">> = {
  name: "delete_tab",
  fields: ["tab_id"],
  validate: (i, checks) => checks.tabId("tab_id", i.tab_id),
  apply: (ctx, meta, i) => {
    const found = findAddedTab(ctx.store, i.tab_id, "deleted");
    if (!found.ok) return found;
    // Its slides or rows go to this change's trash, where a revert finds them (undo.ts).
    const trash = trashOf(nextVersion(meta));
    removeTab(ctx.store, i.tab_id, trash);
    // The answer names no tab (it is gone); the log still says which one went.
    return ok({
      meta: { ...meta, tab_count: meta.tab_count - 1 },
      touched: { tab_id: found.value.id },
      names: { tab_label: found.value.label },
      undo: [{ do: "tab_remove" as const, tab: found.value, trash }],
    });
  },
};
