/**
 * The one way this code runs SQL: bound values only, every cursor read to the
 * end, the query named in any error, and the rows each statement read and
 * wrote added to counters (what a call costs, for the benchmarks).
 */
export type SqlValue = string | number | null;

export class Sql {
  /** Rows read and written since this object started. */
  rowsRead = 0;
  rowsWritten = 0;

  constructor(readonly storage: SqlStorage) {}

  all<T>(query: string, ...bindings: SqlValue[]): T[] {
    let cursor: SqlStorageCursor<Record<string, SqlStorageValue>>;
    let rows: Record<string, SqlStorageValue>[];
    try {
      cursor = this.storage.exec(query, ...bindings);
      rows = cursor.toArray();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message} (in: ${query.replace(/\s+/g, " ").trim()})`);
    }
    this.rowsRead += cursor.rowsRead;
    this.rowsWritten += cursor.rowsWritten;
    return rows as T[];
  }

  first<T>(query: string, ...bindings: SqlValue[]): T | null {
    return this.all<T>(query, ...bindings)[0] ?? null;
  }

  /** Runs a statement for its effect; returns the rows it wrote. */
  run(query: string, ...bindings: SqlValue[]): number {
    const before = this.rowsWritten;
    this.all(query, ...bindings);
    return this.rowsWritten - before;
  }
}
