/** A canonical dump of every table of a Durable Object's SQLite database: what "byte-identical" compares. */

/**
 * Every table (the schema's own bookkeeping and SQLite's AUTOINCREMENT
 * counters included; workerd's internal `_cf_` tables left out), each table's
 * rows in a fixed order, as one JSON text.
 */
export function dumpDatabase(sql: SqlStorage): string {
  const tables = sql
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' ORDER BY name`)
    .toArray()
    .map((t) => t.name);
  const dump: Record<string, unknown[]> = {};
  for (const name of tables) {
    const quoted = `"${name.replace(/"/g, '""')}"`;
    const columns = sql.exec(`SELECT * FROM ${quoted} LIMIT 0`).columnNames;
    const order = columns.map((_, i) => String(i + 1)).join(", ");
    // Blobs (FTS5's index pages) as hex: JSON would write every one as {}.
    dump[name] = sql
      .exec(`SELECT * FROM ${quoted} ORDER BY ${order}`)
      .toArray()
      .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof ArrayBuffer ? hex(v) : v])))
      .filter((row) => name !== "outbox" || !searchDocumentsAlone(row.entry));
  }
  return JSON.stringify(dump);
}

/**
 * An outbox entry (its JSON text) of search documents alone: the alarm delivers it soon after the write
 * that queued it, between any two calls, so it is not part of what a call leaves. A call that queued one
 * still shows, in the outbox's AUTOINCREMENT counter (sqlite_sequence).
 */
export function searchDocumentsAlone(entry: unknown): boolean {
  const parsed = JSON.parse(String(entry)) as { index?: unknown; removed?: boolean };
  return parsed.index !== undefined && parsed.removed !== true;
}

function hex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
