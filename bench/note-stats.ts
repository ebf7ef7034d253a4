/** What the bench Worker's Note object reports of its cost (GET /bench/stats): rows since it started, and its storage now. */
export interface NoteStats {
  rows_read: number;
  rows_written: number;
  database_bytes: number;
  idempotency_records: number;
  sources: number;
}

/** What the bench Worker's directory object reports (GET /bench/directory-stats): rows since it started, and its storage now. */
export interface DirectoryStats {
  rows_read: number;
  rows_written: number;
  database_bytes: number;
}
