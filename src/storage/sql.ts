/** The one way this code runs SQL: bound values only, and the query named in any error. */
export type SqlValue = string | number | null;

export class Sql {
  constructor(readonly storage: SqlStorage) {}

  run(query: string, ...bindings: SqlValue[]): SqlStorageCursor<Record<string, SqlStorageValue>> {
    try {
      return this.storage.exec(query, ...bindings);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${message} (in: ${query.replace(/\s+/g, " ").trim()})`);
    }
  }

  all<T>(query: string, ...bindings: SqlValue[]): T[] {
    return this.run(query, ...bindings).toArray() as T[];
  }

  first<T>(query: string, ...bindings: SqlValue[]): T | null {
    const rows = this.run(query, ...bindings).toArray();
    return rows.length === 0 ? null : (rows[0] as T);
  }
}
