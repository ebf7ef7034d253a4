/**
 * A user's directory of Notes: which Notes they are a member of, and whether
 * each is approved for connectors. Note objects keep it up to date; it
 * answers `list_notes` without visiting every Note. The Note object stays the
 * authority on access: an entry only tells where to look.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import type { DirectoryEntry } from "../note/directory.js";
import { DIRECTORY_MIGRATIONS, migrate } from "./migrations.js";
import { Sql } from "./sql.js";

export type { DirectoryEntry };

export class DirectoryObject extends DurableObject<Env> {
  readonly #sql: Sql;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new Sql(ctx.storage.sql);
    ctx.storage.transactionSync(() => migrate(this.#sql, DIRECTORY_MIGRATIONS));
  }

  upsert(entry: DirectoryEntry): void {
    this.#sql.run(
      `INSERT INTO notes (note_id, title, approved, version) VALUES (?, ?, ?, ?)
       ON CONFLICT (note_id) DO UPDATE SET title = excluded.title, approved = excluded.approved, version = excluded.version
       WHERE excluded.version >= notes.version`,
      entry.note_id,
      entry.title,
      entry.approved ? 1 : 0,
      entry.version,
    );
  }

  list(): DirectoryEntry[] {
    return this.#sql
      .all<{ note_id: string; title: string; approved: number; version: number }>(
        `SELECT note_id, title, approved, version FROM notes ORDER BY note_id`,
      )
      .map((row) => ({ ...row, approved: row.approved === 1 }));
  }
}
