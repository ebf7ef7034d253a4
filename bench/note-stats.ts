/** What the bench Worker's Note object reports of its cost (GET /bench/stats): rows since it started, and its storage now. */
export interface NoteStats {
  rows_read: number;
  rows_written: number;
  database_bytes: number;
  idempotency_records: number;
  sources: number;
}
