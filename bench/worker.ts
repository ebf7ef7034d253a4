/**
 * The Worker `npm run bench` runs: the production app behind five bench-only
 * routes, the production Note object with four bench-only methods and the
 * production directory object with one.
 * bench/server.ts bundles it and runs it on Miniflare with the
 * production wrangler.toml; nothing of it is in src/, so no deployment has it.
 */
import { Hono } from "hono";
import type { Env } from "../src/env.js";
import { app } from "../src/http/app.js";
import { ok } from "../src/note/result.js";
import { newRows } from "../src/note/tabs/sheets.js";
import { DirectoryObject as ProductionDirectoryObject } from "../src/storage/directory-object.js";
import { NoteObject as ProductionNoteObject } from "../src/storage/note-object.js";
import type { DirectoryStats, NoteStats } from "./note-stats.js";

/** The production directory object, plus its cost counters: what keeping the cross-Note index and searching it cost. */
export class DirectoryObject extends ProductionDirectoryObject {
  stats(): DirectoryStats {
    return { rows_read: this.sql.rowsRead, rows_written: this.sql.rowsWritten, database_bytes: this.ctx.storage.sql.databaseSize };
  }
}

/**
 * The request log's sink. Deployed, the runtime sends each line's arguments
 * (src/http/request-log.ts) to Workers Logs as JSON. Miniflare's workerd
 * formats each object as Node's util.inspect would and writes it to a stdout
 * pipe, on the Worker's thread: about 0.1 ms for the formatting and 0.08 ms
 * for the write a call (list_note_tabs at 0.83–0.86 ms of Worker CPU, 0.72–0.77
 * with the line as a JSON string, 0.63–0.67 without it; docs/decisions.md,
 * "The benchmark's runtime"). The bench Worker does what the deployed runtime
 * does, JSON.stringify of the arguments, and drops the text. console.error
 * still reaches the bench (it reports error lines).
 */
console.log = (...args: unknown[]): void => void JSON.stringify(args);

/** The production Note object, plus what the bench measures and sets up with. */
export class NoteObject extends ProductionNoteObject {
  /** The cheapest call an object can answer: the baseline. */
  ping(): string {
    return "pong";
  }

  /** What this object's SQL has cost since it started (the helper's row counters), and its storage now. */
  stats(): NoteStats {
    // The counters first: the counts below read rows too, and bench/call-cost.ts takes that off.
    const cost = { rows_read: this.sql.rowsRead, rows_written: this.sql.rowsWritten };
    const count = (table: string): number => this.sql.first<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`)?.n ?? 0;
    return { ...cost, database_bytes: this.ctx.storage.sql.databaseSize, idempotency_records: count("idempotency"), sources: count("sources") };
  }

  /**
   * Attaches `count` generated sources and bumps the version once, in one
   * transaction and past the Note's rules (no key, no limit check): a Note of
   * 100,000 sources in seconds, where 100,000 tool calls would take minutes.
   */
  seedSources(count: number): number {
    const seeded = this.store.transaction(() => {
      const meta = this.store.readMeta();
      if (meta === null) throw new Error("seed a created Note");
      for (let i = 0; i < count; i++) {
        const url = `https://bench.example/${meta.source_count + i}`;
        this.store.insertSource({ title: `Source ${meta.source_count + i}`, url, normalized_url: url, description: "", added_at: Date.now() });
      }
      this.store.writeMeta({ ...meta, source_count: meta.source_count + count, version: meta.version + 1 });
      return ok(meta.source_count + count);
    });
    if (!seeded.ok) throw new Error(seeded.error.message);
    return seeded.value;
  }

  /**
   * Appends `count` generated rows to a Sheet and bumps the version once, in one
   * transaction: rows as rows_append writes them (IDs from the Note's counter,
   * keys after the last), but past its per-call limit, so a 10,000-row Sheet
   * takes one call. Cells fill the Sheet's first three columns: a name
   * ("Row {n}", n counting from 1), a region, an amount.
   */
  seedRows(tabId: string, count: number): { rows: number; ids: string[] } {
    const seeded = this.store.transaction(() => {
      const meta = this.store.readMeta();
      const tab = this.store.tab(tabId);
      if (meta === null || tab === null || tab.type !== "sheet" || tab.columns.length < 3) throw new Error(`seed a Sheet of three columns or more, not ${tabId}`);
      const [name, region, amount] = tab.columns as [string, string, string];
      const cells = Array.from({ length: count }, (_, i) => ({ [name]: `Row ${tab.row_count + i + 1}`, [region]: ["North", "South", "East", "West"][i % 4] as string, [amount]: (i * 37) % 1000 }));
      const { rows, meta: after } = newRows(Date.now(), meta, cells, tab.columns, this.store.rows.lastKey(tab.id));
      this.store.rows.insert(tab.id, rows);
      this.store.updateTab({ ...tab, row_count: tab.row_count + count });
      this.store.writeMeta({ ...after, version: meta.version + 1 });
      return ok({ rows: tab.row_count + count, ids: rows.map((row) => row.id) });
    });
    if (!seeded.ok) throw new Error(seeded.error.message);
    return seeded.value;
  }
}

/** The production bindings, with these Note and directory objects behind NOTES and DIRECTORY. */
type BenchEnv = Omit<Env, "NOTES" | "DIRECTORY"> & { NOTES: DurableObjectNamespace<NoteObject>; DIRECTORY: DurableObjectNamespace<DirectoryObject> };

const worker = new Hono<{ Bindings: BenchEnv }>();

const note = (env: BenchEnv, noteId: string): DurableObjectStub<NoteObject> => env.NOTES.get(env.NOTES.idFromName(noteId));

worker.get("/bench/baseline", async (c) => {
  await note(c.env, "bench-baseline").ping();
  return c.text("ok");
});

worker.get("/bench/stats/:note", async (c) => c.json(await note(c.env, c.req.param("note")).stats()));

worker.get("/bench/directory-stats/:user", async (c) => c.json(await c.env.DIRECTORY.get(c.env.DIRECTORY.idFromName(c.req.param("user"))).stats()));

worker.post("/bench/seed-sources/:note", async (c) => {
  const count = Number(c.req.query("count"));
  if (!Number.isInteger(count) || count < 1 || count > 100_000) return c.json({ error: { code: "invalid_arguments", message: "count: 1 to 100000" } }, 400);
  return c.json({ sources: await note(c.env, c.req.param("note")).seedSources(count) });
});

worker.post("/bench/seed-rows/:note/:tab", async (c) => {
  const count = Number(c.req.query("count"));
  if (!Number.isInteger(count) || count < 1 || count > 10_000) return c.json({ error: { code: "invalid_arguments", message: "count: 1 to 10000" } }, 400);
  return c.json(await note(c.env, c.req.param("note")).seedRows(c.req.param("tab"), count));
});

// Everything else is the production Worker, as deployed.
worker.all("*", (c) => app.fetch(c.req.raw, c.env, c.executionCtx));

export default worker;
