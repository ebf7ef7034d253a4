/**
 * A Sheet's columns and rows. Columns are names, appended, never renamed or
 * removed here; rows hold cells (text or numbers) by column name, and each
 * row has an exact ID as a slide does. The agent appends, updates and deletes
 * rows by ID and adds columns; the person may also move a row. A row holds
 * at least one cell: rows_append refuses an empty row and row_update one that
 * would empty the last.
 */
import { fieldPath, invalidArguments, limitExceeded, type Issue } from "../errors.js";
import { LIMITS } from "../limits.js";
import { deleteEdit, findItem, moveEdit, ROWS } from "./items.js";
import { appendKeys } from "./order.js";
import { fail, ok, type Result } from "../result.js";
import type { Cells, Keyed, NoteMeta, NoteStore, SheetRow, TabRow } from "../store.js";
import type { TabEdit } from "./edit.js";
import { newRowId } from "./ids.js";

/** The row with exactly this ID in this Sheet. Never an index. */
function findRow(store: NoteStore, tab: TabRow, rowId: string): Result<Keyed<SheetRow>> {
  return findItem(ROWS, store, tab, rowId);
}

/**
 * An issue for each cell whose name is no column of the Sheet, in `rows`
 * (each at `${path}[i]`, or at `path` when not `indexed`). Only the first
 * names the Sheet's columns: 50 names of 100 characters in each of 25,000
 * issues would be an answer of megabytes.
 */
export function unknownColumns(path: string, rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[], indexed: boolean): Issue[] {
  const known = new Set(columns);
  const list = columns.length === 0 ? "it has no columns yet (columns_add adds some)" : `its columns are ${columns.map((c) => JSON.stringify(c)).join(", ")}`;
  const issues = rows.flatMap((cells, i) =>
    Object.keys(cells)
      .filter((name) => !known.has(name))
      .map((name) => ({ path: fieldPath(indexed ? `${path}[${i}]` : path, name), problem: `no column ${JSON.stringify(name)} in this Sheet` })),
  );
  if (issues[0] !== undefined) issues[0].problem += `; ${list}`;
  return issues;
}

/** The cells in the Sheet's column order, as stored and answered. */
function inColumnOrder(cells: Readonly<Record<string, string | number | null>>, columns: readonly string[]): Cells {
  // fromEntries, not assignment: every name is a data property (no name is "__proto__", but nothing here relies on it).
  return Object.fromEntries(columns.flatMap((name) => (Object.hasOwn(cells, name) && cells[name] !== null ? [[name, cells[name] as string | number]] : [])));
}

/**
 * New rows as stored, each with the next row ID of this Note and the next key
 * after `last` (the Sheet's last key, null for none). Returns them and the meta
 * with the counter moved past them; the caller writes both.
 */
export function newRows(nowMs: number, meta: NoteMeta, given: readonly Cells[], columns: readonly string[], last: number | null): { rows: Keyed<SheetRow>[]; meta: NoteMeta } {
  const keys = appendKeys(last, given.length);
  const rows = given.map((cells, i) => ({ id: newRowId(meta.next_row_n + i, nowMs), key: keys[i] as number, cells: inColumnOrder(cells, columns) }));
  return { rows, meta: { ...meta, next_row_n: meta.next_row_n + rows.length } };
}

/** Refuses cells of columns the Sheet does not have, naming each. */
function knownColumns(path: string, rows: readonly Readonly<Record<string, unknown>>[], columns: readonly string[], indexed: boolean): Result<null> {
  const issues = unknownColumns(path, rows, columns, indexed);
  return issues.length === 0 ? ok(null) : fail(invalidArguments(issues));
}

/** Refuses more rows than a Sheet may hold. */
function roomForRows(tab: { id: string; row_count: number }, adding: number): Result<null> {
  if (tab.row_count + adding <= LIMITS.rowsPerSheet) return ok(null);
  return fail(limitExceeded("rows_per_sheet", LIMITS.rowsPerSheet, `Tab "${tab.id}" has ${tab.row_count} rows; ${adding} more would pass the limit`));
}

/** The edits of a Sheet, each row by exact row ID (tab-edit.ts runs them). */
export const SHEET_EDITS = {
  columns_add: {
    tabType: "sheet",
    fields: ["columns"],
    validate: (i, checks) => checks.columns("columns", i.columns, 1, LIMITS.columnsPerSheet),
    apply: (_ctx, meta, tab, i) => {
      const adding = i.columns ?? [];
      const issues = adding.flatMap((name, at) => (tab.columns.includes(name) ? [{ path: `columns[${at}]`, problem: `${JSON.stringify(name)} is already a column of this Sheet` }] : []));
      if (issues.length > 0) return fail(invalidArguments(issues));
      if (tab.columns.length + adding.length > LIMITS.columnsPerSheet) {
        return fail(limitExceeded("columns_per_sheet", LIMITS.columnsPerSheet, `Tab "${tab.id}" has ${tab.columns.length} columns; ${adding.length} more would pass the limit`));
      }
      return ok({ meta, tab: { ...tab, columns: [...tab.columns, ...adding] }, ids: [], added: 0, undo: [{ do: "columns_add" as const, tab: tab.id, columns: [...adding] }] });
    },
  },
  rows_append: {
    tabType: "sheet",
    fields: ["rows"],
    validate: (i, checks) => checks.rows("rows", i.rows, 1, LIMITS.rowsPerCall),
    apply: (ctx, meta, tab, i) => {
      const given = i.rows ?? [];
      const known = knownColumns("rows", given, tab.columns, true);
      if (!known.ok) return known;
      const room = roomForRows(tab, given.length);
      if (!room.ok) return room;
      const { rows, meta: after } = newRows(ctx.now(), meta, given, tab.columns, ctx.store.rows.lastKey(tab.id));
      ctx.store.rows.insert(tab.id, rows);
      const ids = rows.map((row) => row.id);
      return ok({ meta: after, tab: { ...tab, row_count: tab.row_count + rows.length }, ids, added: rows.length, undo: [{ do: "items_add" as const, what: "row" as const, tab: tab.id, ids }] });
    },
  },
  row_update: {
    tabType: "sheet",
    fields: ["row_id", "cells"],
    validate: (i, checks) => {
      checks.itemId("row_id", i.row_id);
      checks.cells("cells", i.cells, true);
    },
    apply: (ctx, meta, tab, i) => {
      const cells = i.cells ?? {};
      const known = knownColumns("cells", [cells], tab.columns, false);
      if (!known.ok) return known;
      const found = findRow(ctx.store, tab, i.row_id as string);
      if (!found.ok) return found;
      const row = found.value;
      const updated = { ...row, cells: inColumnOrder({ ...row.cells, ...cells }, tab.columns) };
      // A row holds at least one cell, as rows_append asks of a new one (docs/decisions.md): emptying the last is row_delete's work.
      if (Object.keys(updated.cells).length === 0) {
        return fail(invalidArguments([{ path: "cells", problem: `would empty every cell of row "${row.id}"; a row keeps at least one cell (give a value, or delete the row with row_delete)` }]));
      }
      const same = JSON.stringify(updated.cells) === JSON.stringify(row.cells);
      if (!same) ctx.store.rows.update(tab.id, updated);
      return ok({ meta, tab, ids: [row.id], added: 0, unchanged: same, undo: [{ do: "row_cells" as const, tab: tab.id, id: row.id, before: row.cells, after: updated.cells }] });
    },
  },
  row_delete: deleteEdit(ROWS),
  row_move: moveEdit(ROWS),
} satisfies Record<string, TabEdit>;
