/**
 * A Note's tables as the generated-history test reads and compares them: every
 * table of the object's SQLite database, the real rows projected onto the
 * model's columns, and the rules every state of a Note keeps.
 */
import { noteDocuments, type IndexDoc } from "../../src/note/search/documents.js";
import type { Cells, FileRow, Slide, SourceRow, TabRow } from "../../src/note/store.js";
import { searchDocumentsAlone } from "./dump.js";
import { canonical, FINGERPRINT, FIXED, LIMIT, show, TIME, type Row, type Tables } from "./note-model.js";

/** The tables the model predicts row by row: their columns and primary keys. */
const MODELLED: Record<string, { columns: string[]; key: string[] }> = {
  meta: { columns: ["id", "note_id", "title", "version", "approved", "next_tab_n", "tab_count", "source_count", "file_count", "created_at", "deleted", "next_slide_n", "next_row_n"], key: ["id"] },
  members: { columns: ["user", "role"], key: ["user"] },
  tabs: { columns: ["id", "type", "label", "position", "slide_count", "row_count", "columns"], key: ["id"] },
  slides: { columns: ["tab_id", "idx", "title", "body", "notes", "id"], key: ["tab_id", "idx"] },
  sheet_rows: { columns: ["tab_id", "idx", "id", "cells"], key: ["tab_id", "idx"] },
  markdown: { columns: ["id", "text"], key: ["id"] },
  idempotency: { columns: ["key", "tool", "result", "created_at", "fingerprint"], key: ["key"] },
  sources: { columns: ["seq", "title", "url", "normalized_url", "description", "added_at"], key: ["seq"] },
  files: { columns: ["seq", "name", "media_type", "size_bytes", "added_at"], key: ["seq"] },
  changes: { columns: ["version", "entry"], key: ["version"] },
};
/** SQLite's tables outside the model, each with a rule of its own (`sqliteRules`). */
const RULED = ["outbox", "schema_migrations", "sqlite_sequence", "touched", "search"];
/** FTS5's own tables behind a full-text table (its index pages, sizes and settings): its rows are read through the table itself. */
const FTS_SHADOW = /_(data|idx|content|docsize|config)$/;
/**
 * What taking a change back keeps (src/note/undo.ts), outside the model: each log
 * row's `touch` and `undo`, and the slides and rows a change deleted, kept in its
 * trash (a tab ID `~{version}`). `sqliteRules` checks their bounds.
 */
const UNDO_COLUMNS: Record<string, string[]> = { changes: ["touch", "undo"] };
const isTrashRow = (name: string, row: Row) => (name === "slides" || name === "sheet_rows") && typeof row.tab_id === "string" && row.tab_id.startsWith("~");
const TIMES = new Set(["created_at", "added_at"]);

/** Each table's `SELECT`, rows in primary-key order: the schema is the same in every Note of a run. */
const selects = new Map<string, string>();

/**
 * Every table of a Durable Object's database but the runtime's own (`_cf_*`),
 * rows in primary-key order. A full-text table (the search index, migration
 * 10) as its rows with their rowid, not its shadow tables: those are FTS5's
 * pages, which no model predicts (and a DELETE on them would break the index).
 */
export function sqliteTables(sql: SqlStorage): Tables {
  const master = sql.exec<{ name: string; sql: string | null }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").toArray();
  const virtual = master.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql ?? "")).map((r) => r.name);
  const names = master
    .map((r) => r.name)
    .filter((name) => !name.startsWith("_cf_"))
    .filter((name) => !virtual.some((v) => name.startsWith(`${v}_`) && FTS_SHADOW.test(name)));
  const tables: Tables = {};
  for (const name of names) {
    let select = selects.get(name);
    if (select === undefined && virtual.includes(name)) {
      select = `SELECT rowid, * FROM "${name}" ORDER BY rowid`;
      selects.set(name, select);
    }
    if (select === undefined) {
      const key = sql
        .exec<{ name: string; pk: number }>(`PRAGMA table_info("${name}")`)
        .toArray()
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => `"${c.name}"`);
      select = `SELECT * FROM "${name}" ORDER BY ${key.length > 0 ? key.join(", ") : "1"}`;
      selects.set(name, select);
    }
    tables[name] = sql.exec(select).toArray();
  }
  return tables;
}

/** A dump as one text: equal text, byte-identical tables. Rows sorted, so a store's iteration order does not count. */
export function dumpText(tables: Tables): string {
  // The outbox is left out: its search documents leave it when the alarm rings, between any two calls (its own rule is in sqliteRules).
  return canonical(Object.fromEntries(Object.keys(tables).filter((name) => name !== "outbox").sort().map((name) => [name, sortedRows(tables[name] ?? [])])));
}

/**
 * The real rows in the model's terms: its columns only (any other is a
 * problem to model), times checked and masked, SQLite's 0/1 as booleans, the
 * recorded result parsed, and an empty Markdown text the same as none.
 */
export function project(tables: Tables): { rows: Tables; problems: string[] } {
  const problems: string[] = [];
  const rows: Tables = {};
  for (const [name, { columns, key }] of Object.entries(MODELLED)) {
    const real = tables[name];
    if (real === undefined) {
      problems.push(`table ${name} is missing`);
      continue;
    }
    rows[name] = byKey(
      real.flatMap((row) => {
        if (isTrashRow(name, row)) return [];
        const extra = Object.keys(row).filter((c) => !columns.includes(c) && !(UNDO_COLUMNS[name] ?? []).includes(c));
        const missing = columns.filter((c) => !(c in row));
        if (extra.length > 0 || missing.length > 0) problems.push(`${name}: columns ${show({ extra, missing })} differ from the model's (test/support/note-model.ts)`);
        const out: Row = {};
        for (const c of columns) out[c] = column(name, c, row[c], problems);
        return name === "markdown" && out.text === "" ? [] : [out];
      }),
      key,
    );
  }
  return { rows, problems };
}

/** The model's rows in the same order as `project`'s. */
export function ordered(tables: Tables): Tables {
  return Object.fromEntries(Object.entries(MODELLED).map(([name, { key }]) => [name, byKey(tables[name] ?? [], key)]));
}

/** Row by row, what differs between two sets of tables (by primary key). */
export function differences(expected: Tables, actual: Tables): string[] {
  const out: string[] = [];
  for (const name of [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort()) {
    const key = MODELLED[name]?.key;
    const id = (row: Row) => (key === undefined ? canonical(row) : canonical(key.map((k) => row[k])));
    const want = new Map((expected[name] ?? []).map((r) => [id(r), r]));
    const got = new Map((actual[name] ?? []).map((r) => [id(r), r]));
    for (const k of new Set([...want.keys(), ...got.keys()])) {
      const w = want.get(k);
      const g = got.get(k);
      if (canonical(w) === canonical(g)) continue;
      out.push(w === undefined ? `${name}: unexpected row ${show(g)}` : g === undefined ? `${name}: missing row ${show(w)}` : `${name} ${k}: expected ${show(w)}, got ${show(g)}`);
    }
  }
  return out;
}

/**
 * What every state of a Note keeps, whatever happened before: strip positions,
 * tab, slide and row IDs, counters, and each deck's slides and Sheet's rows
 * counted on its tab, with distinct whole-number order keys.
 */
export function invariants(rows: Tables): string[] {
  const problems: string[] = [];
  const tabs = rows.tabs ?? [];
  const positions = tabs.map((t) => Number(t.position)).sort((a, b) => a - b);
  if (positions.some((p, i) => p !== i)) problems.push(`tab positions ${show(positions)} are not a permutation of 0..${tabs.length - 1}`);
  const meta = rows.meta?.[0];
  if (meta !== undefined && meta.tab_count !== tabs.length) problems.push(`meta.tab_count is ${show(meta.tab_count)} with ${tabs.length} tabs stored`);
  for (const tab of tabs) {
    const id = String(tab.id);
    const fixed = (FIXED as readonly string[]).includes(id);
    const match = /^(slides|sheet)-(\d+)-[0-9a-z]+$/.exec(id);
    if (!fixed && (match === null || match[1] !== tab.type)) problems.push(`tab ID ${id} is not {type}-{n}-{base36 ms} of its type ${show(tab.type)}`);
    if (match !== null && meta !== undefined && Number(match[2]) >= Number(meta.next_tab_n)) problems.push(`tab ID ${id} has n ≥ next_tab_n ${show(meta.next_tab_n)}`);
    for (const [table, count] of [["slides", "slide_count"], ["sheet_rows", "row_count"]] as const) {
      const keys = (rows[table] ?? []).filter((s) => s.tab_id === id).map((s) => s.idx);
      if (keys.length !== Number(tab[count]) || keys.some((k, i) => !Number.isSafeInteger(k) || (i > 0 && (k as number) <= (keys[i - 1] as number)))) {
        problems.push(`tab ${id} has ${count} ${show(tab[count])} and ${table} keyed ${show(keys)}`);
      }
    }
    if (tab.type !== "sheet" && tab.columns !== "[]") problems.push(`tab ${id} of type ${show(tab.type)} has columns ${show(tab.columns)}`);
  }
  for (const [table, kind, counter, type] of [["slides", "slide", "next_slide_n", "slides"], ["sheet_rows", "row", "next_row_n", "sheet"]] as const) {
    const ids = new Set<string>();
    for (const item of rows[table] ?? []) {
      const id = String(item.id);
      const match = new RegExp(`^${kind}-(\\d+)-[0-9a-z]+$`).exec(id);
      if (match === null) problems.push(`${kind} ID ${show(item.id)} is not ${kind}-{n}-{base36 ms}`);
      else if (meta !== undefined && Number(match[1]) >= Number(meta[counter])) problems.push(`${kind} ID ${id} has n ≥ ${counter} ${show(meta[counter])}`);
      if (ids.has(id)) problems.push(`${kind} ID ${id} is held by two ${table}`);
      ids.add(id);
    }
    const orphans = (rows[table] ?? []).filter((s) => !tabs.some((t) => t.id === s.tab_id && t.type === type));
    if (orphans.length > 0) problems.push(`${orphans.length} ${table} of no ${type} tab, e.g. ${show(orphans[0])}`);
  }
  problems.push(...logRules(rows));
  return problems;
}

/**
 * The change log of a Note created under it holds one entry per committed
 * change, the newest kept: versions one after another, the last the Note's
 * version, as many as the versions it keeps (a Note's first version is its
 * creation, a change too), each entry's JSON naming its row's version.
 */
function logRules(rows: Tables): string[] {
  const problems: string[] = [];
  const log = rows.changes ?? [];
  const versions = log.map((r) => Number(r.version));
  const version = rows.meta?.[0]?.version;
  if (versions.some((v, i) => i > 0 && v !== (versions[i - 1] as number) + 1)) problems.push(`the log's versions ${show(versions)} are not one after another`);
  if (version === undefined) {
    if (log.length > 0) problems.push(`the log holds ${log.length} entries without a Note`);
  } else {
    if (versions.at(-1) !== version) problems.push(`the log's newest entry is version ${show(versions.at(-1))}, the Note's version is ${show(version)}`);
    if (log.length !== Math.min(Number(version), LIMIT.changesKept)) problems.push(`the log holds ${log.length} entries at version ${show(version)}: one per committed change, the last ${LIMIT.changesKept} kept`);
  }
  for (const row of log) {
    const named = typeof row.entry === "string" ? ENTRY_START.exec(row.entry)?.[1] : undefined;
    if (named !== String(row.version)) problems.push(`changes row ${show(row.version)} holds the entry of version ${show(named)}`);
  }
  return problems;
}

/**
 * SQLite's tables outside the model: no table nobody modelled, the directory
 * outbox delivered by the end of each call, the schema's migrations fixed, and
 * AUTOINCREMENT counters that never go back.
 */
export function sqliteRules(tables: Tables, first: Tables, previous: Tables): string[] {
  const problems: string[] = [];
  const unknown = Object.keys(tables).filter((name) => !(name in MODELLED) && !RULED.includes(name));
  if (unknown.length > 0) problems.push(`tables ${show(unknown)} are neither modelled nor ruled (test/support/note-tables.ts)`);
  // What a member's list shows is delivered before the call answers; search documents alone may wait for the alarm (SEARCH_DELIVERY_MS).
  const listing = (tables.outbox ?? []).filter((r) => !searchDocumentsAlone(r.entry));
  if (listing.length > 0) problems.push(`the directory outbox still holds ${show(listing)} after the call`);
  if (canonical(tables.schema_migrations) !== canonical(first.schema_migrations)) problems.push(`schema_migrations changed: ${show(tables.schema_migrations)}`);
  for (const row of tables.sqlite_sequence ?? []) {
    const before = (previous.sqlite_sequence ?? []).find((r) => r.name === row.name);
    if (before !== undefined && Number(row.seq) < Number(before.seq)) problems.push(`the ${show(row.name)} sequence went back from ${show(before.seq)} to ${show(row.seq)}`);
  }
  // A deletion's trash lasts as long as its log entry; the touch index names no version the Note has not reached.
  const kept = new Set((tables.changes ?? []).map((r) => `~${String(r.version)}`));
  for (const name of ["slides", "sheet_rows"]) {
    const stray = (tables[name] ?? []).filter((r) => isTrashRow(name, r) && !kept.has(String(r.tab_id)));
    if (stray.length > 0) problems.push(`${stray.length} ${name} kept in the trash of a change the log no longer holds, e.g. ${show(stray[0])}`);
  }
  const version = Number(tables.meta?.[0]?.version ?? 0);
  const ahead = (tables.touched ?? []).filter((r) => Number(r.version) > version);
  if (ahead.length > 0) problems.push(`the touch index names versions past the Note's ${version}: ${show(ahead.slice(0, 3))}`);
  problems.push(...indexRules(tables));
  for (const name of ["sources", "files"]) {
    const highest = Math.max(0, ...(tables[name] ?? []).map((r) => Number(r.seq)));
    const counter = Number((tables.sqlite_sequence ?? []).find((r) => r.name === name)?.seq ?? 0);
    if (counter < highest) problems.push(`the ${name} sequence is at ${counter} below its row ${highest}`);
  }
  return problems;
}

/**
 * The search index holds exactly the documents of the content (docs/search.md): rebuilt from the
 * tables as the migration builds it, row for row, so no write left a document stale, missing or behind.
 */
export function indexRules(tables: Tables): string[] {
  const rebuilt = rebuiltRows(tables);
  const held = tables.search ?? [];
  // Rows as `SELECT rowid, *` gives them and as rebuiltRows makes them: the same columns in the same order.
  if (JSON.stringify(held) === JSON.stringify(rebuilt)) return [];
  const want = new Map(rebuilt.map((r) => [Number(r.rowid), r]));
  const got = new Map(held.map((r) => [Number(r.rowid), r]));
  const wrong = [...new Set([...want.keys(), ...got.keys()])]
    .filter((key) => canonical(want.get(key)) !== canonical(got.get(key)))
    .slice(0, 3)
    .map((key) => `key ${key}: expected ${show(want.get(key))}, got ${show(got.get(key))}`);
  return [`the search index differs from the one rebuilt from the content: ${wrong.join("; ")}`];
}

/** The last content's rebuilt rows: a history checks after every step, and most steps change no content. */
let lastRebuilt: { content: string; rows: Row[] } | null = null;

function rebuiltRows(tables: Tables): Row[] {
  const content = JSON.stringify([tables.meta?.[0]?.title, tables.meta?.[0]?.deleted, tables.tabs, tables.slides, tables.sheet_rows, tables.markdown, tables.sources, tables.files]);
  if (lastRebuilt?.content !== content) lastRebuilt = { content, rows: rebuildIndex(tables).map((d) => ({ rowid: d.key, text: d.text, item: d.item })) };
  return lastRebuilt.rows;
}

/** The index's documents as the content in these tables gives them (src/note/search/documents.ts). */
export function rebuildIndex(tables: Tables): IndexDoc[] {
  const meta = tables.meta?.[0];
  if (meta === undefined || meta.deleted === 1 || meta.deleted === true) return [];
  const tabs = (tables.tabs ?? []).map((t) => ({ ...(t as unknown as TabRow), columns: JSON.parse(String(t.columns)) as string[] }));
  const items = (name: string, tabId: string) => (tables[name] ?? []).filter((r) => r.tab_id === tabId).sort((a, b) => Number(a.idx) - Number(b.idx));
  return noteDocuments({
    meta: { title: String(meta.title) },
    tabs,
    slides: (tabId) => items("slides", tabId) as unknown as Slide[],
    rows: (tabId) => items("sheet_rows", tabId).map((r) => ({ id: String(r.id), cells: JSON.parse(String(r.cells)) as Cells })),
    markdown: String(tables.markdown?.[0]?.text ?? ""),
    sources: (tables.sources ?? []) as unknown as SourceRow[],
    files: (tables.files ?? []) as unknown as FileRow[],
  });
}

function column(table: string, name: string, value: unknown, problems: string[]): unknown {
  if (TIMES.has(name)) {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) problems.push(`${table}.${name}: ${show(value)} is not a time in milliseconds`);
    return TIME;
  }
  if (table === "meta" && (name === "approved" || name === "deleted")) return value === 1 || value === true;
  if (table === "idempotency" && name === "result") {
    const result = { ...((typeof value === "string" ? JSON.parse(value) : value) as Row) };
    // A recorded first result says its arguments did not differ; only a replay's answer may say they did.
    if (result.arguments_differ !== false) problems.push(`${table}.${name}: arguments_differ is ${show(result.arguments_differ)}, not false`);
    delete result.arguments_differ;
    return result;
  }
  if (table === "changes" && name === "entry") return entryWithoutTime(value, problems);
  if (table === "idempotency" && name === "fingerprint") {
    // Its value is the domain's hash; the model checks what it is for: a replay's arguments_differ.
    if (typeof value !== "string" || !/^[0-9a-f]{16}$/.test(value)) problems.push(`${table}.${name}: ${show(value)} is not 16 hex digits`);
    return FINGERPRINT;
  }
  return value;
}

/** How an entry's JSON begins: its version, then its time. */
const ENTRY_START = /^\{"version":(\d+),"at":"([^"]*)",/;

/**
 * An entry's JSON exactly as stored but for its time, which must be an ISO
 * 8601 instant as Date writes it and is masked: the rest compares byte for byte.
 */
function entryWithoutTime(value: unknown, problems: string[]): unknown {
  const start = typeof value === "string" ? ENTRY_START.exec(value) : null;
  if (start === null) {
    problems.push(`changes.entry: ${show(value)} does not begin with its version and time`);
    return value;
  }
  const at = start[2] as string;
  if (Number.isNaN(Date.parse(at)) || new Date(Date.parse(at)).toISOString() !== at) problems.push(`changes.entry: at ${show(at)} is not an ISO 8601 time`);
  return `{"version":${start[1]},"at":${JSON.stringify(TIME)},${(value as string).slice(start[0].length)}`;
}

/** Each entry's version and time, by version, from the rows as stored. */
export function entryTimes(tables: Tables): Map<number, string> {
  const times = new Map<number, string>();
  for (const row of tables.changes ?? []) {
    const start = typeof row.entry === "string" ? ENTRY_START.exec(row.entry) : null;
    if (start !== null) times.set(Number(row.version), start[2] as string);
  }
  return times;
}

function byKey(rows: Row[], key: string[]): Row[] {
  return [...rows].sort((a, b) => {
    for (const k of key) {
      const x = a[k] as string | number;
      const y = b[k] as string | number;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}

function sortedRows(rows: Row[]): string[] {
  return rows.map((r) => canonical(r)).sort();
}
