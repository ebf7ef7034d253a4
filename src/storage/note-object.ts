/**
 * The Note as a Durable Object: one instance per `note_id`, so its writes are
 * serialized. The object is a thin shell: it migrates its SQLite schema in
 * the constructor, runs each operation as one domain call inside one
 * synchronous transaction, and after the commit does the I/O that must not sit
 * inside it (directory updates, scheduling the pruning alarm).
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import type { Caller, CommandName, Input, Output } from "../note/commands.js";
import { KEYED_COMMANDS } from "../note/commands.js";
import { DEFAULT_RETENTION_MS } from "../note/limits.js";
import { Note } from "../note/note.js";
import type { Result } from "../note/result.js";
import type { DirectoryEntry } from "./directory-object.js";
import { migrate, NOTE_MIGRATIONS } from "./migrations.js";
import type { NoteStats } from "./note-stats.js";
import { Sql } from "./sql.js";
import { SqliteNoteStore } from "./sqlite-note-store.js";

/** Operations after which the members' directories must learn the Note's state. */
const DIRECTORY_COMMANDS: ReadonlySet<CommandName> = new Set(["create_note", "set_approval", "add_member"]);
const KEYED: ReadonlySet<CommandName> = new Set(KEYED_COMMANDS);

export class NoteObject extends DurableObject<Env> {
  readonly #sql: Sql;
  readonly #store: SqliteNoteStore;
  readonly #retentionMs: number;
  /** When the alarm is set to ring (null: none), once read; saves a storage read on every write. */
  #alarmAt: number | null | undefined;
  #rules: Note | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = new Sql(ctx.storage.sql);
    this.#store = new SqliteNoteStore(this.#sql, ctx.storage);
    this.#retentionMs = retentionMs(env.IDEMPOTENCY_RETENTION_SECONDS);
    ctx.storage.transactionSync(() => migrate(this.#sql, NOTE_MIGRATIONS));
  }

  /** Runs one operation of the Note's rules (src/note) in one transaction. */
  async execute<K extends CommandName>(noteId: string, caller: Caller, name: K, input: Input<K>): Promise<Result<Output<K>>> {
    const note = this.#note(noteId);
    let owesDirectory = false;
    const result = this.#store.transaction(() => {
      const outcome = note.execute(caller, name, input);
      if (outcome.ok && DIRECTORY_COMMANDS.has(name)) owesDirectory = this.#queueDirectoryEntries(note);
      return outcome;
    });
    if (owesDirectory) await this.#deliverDirectoryEntries();
    if (result.ok && KEYED.has(name)) await this.#alarmBy(Date.now() + this.#retentionMs);
    return result;
  }

  /** The cheapest call an object can answer: the benchmark's baseline. */
  ping(): string {
    return "pong";
  }

  /** What this object's calls have cost since it started, and its storage now (benchmarks). */
  stats(): NoteStats {
    const count = (table: string) => this.#sql.first<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)?.n ?? 0;
    const cost = { rows_read: this.#sql.rowsRead, rows_written: this.#sql.rowsWritten };
    return { ...cost, database_bytes: this.ctx.storage.sql.databaseSize, idempotency_records: count("idempotency"), sources: count("sources") };
  }

  /** Benchmarks only: attaches `count` generated sources in one transaction (a Note of 100,000 sources in seconds). */
  seedSources(count: number): number {
    return this.#store.transaction(() => {
      const meta = this.#store.readMeta();
      if (meta === null) throw new Error("seed a created Note");
      for (let i = 0; i < count; i++) {
        const url = `https://bench.example/${meta.source_count + i}`;
        this.#store.insertSource({ title: `Source ${meta.source_count + i}`, url, normalized_url: url, description: "", added_at: Date.now() });
      }
      this.#store.writeMeta({ ...meta, source_count: meta.source_count + count, version: meta.version + 1 });
      return meta.source_count + count;
    });
  }

  /** Prunes idempotency records past retention and retries undelivered directory entries. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    const note = this.#note(this.#store.readMeta()?.note_id ?? "");
    const { oldest } = note.pruneIdempotency(this.#retentionMs);
    const pending = await this.#deliverDirectoryEntries();
    const next = [oldest === null ? null : oldest + this.#retentionMs, pending > 0 ? Date.now() + 30_000 : null].filter(
      (t): t is number => t !== null,
    );
    // An alarm set for the instant already running may never ring again: always a later one.
    if (next.length > 0) await this.#alarmBy(Math.max(Math.min(...next), Date.now() + 1));
  }

  /** The Note's rules over this object's store; one object is one Note, so it is built once. */
  #note(noteId: string): Note {
    if (this.#rules?.id !== noteId) this.#rules = new Note(noteId, this.#store, { now: Date.now });
    return this.#rules;
  }

  #queueDirectoryEntries(note: Note): boolean {
    const meta = note.meta();
    if (meta === null) return false;
    const entry: DirectoryEntry = { note_id: meta.note_id, title: meta.title, approved: meta.approved, version: meta.version };
    for (const user of this.#store.members()) {
      this.#sql.run(`INSERT INTO outbox (user, entry) VALUES (?, ?)`, user, JSON.stringify(entry));
    }
    return true;
  }

  /** Delivers what the outbox holds; returns how many entries are still owed. */
  async #deliverDirectoryEntries(): Promise<number> {
    const rows = this.#sql.all<{ seq: number; user: string; entry: string }>(`SELECT seq, user, entry FROM outbox ORDER BY seq`);
    let owed = 0;
    for (const row of rows) {
      try {
        const directory = this.env.DIRECTORY.get(this.env.DIRECTORY.idFromName(row.user));
        await directory.upsert(JSON.parse(row.entry) as DirectoryEntry);
        this.#sql.run(`DELETE FROM outbox WHERE seq = ?`, row.seq);
      } catch (error) {
        owed += 1;
        console.error(`directory update for ${row.user} failed; the alarm retries it`, error);
      }
    }
    if (owed > 0) await this.#alarmBy(Date.now() + 30_000);
    return owed;
  }

  /** Makes sure the alarm rings no later than `at`. */
  async #alarmBy(at: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt !== null && this.#alarmAt <= at) return;
    await this.ctx.storage.setAlarm(at);
    this.#alarmAt = at;
  }
}

function retentionMs(seconds: string | undefined): number {
  const parsed = Number(seconds);
  return seconds !== undefined && Number.isFinite(parsed) && parsed > 0 ? parsed * 1000 : DEFAULT_RETENTION_MS;
}
