/**
 * A Note's sources and files as metadata (docs/spec.md §6), paged by an opaque
 * cursor: a page reads `limit` rows whatever the Note holds. Never file
 * content, never a download link. The person records file metadata.
 */
import { openNote } from "../pipeline/access.js";
import type { AttachmentPage, Caller, Input } from "../commands.js";
import type { NoteContext } from "../context.js";
import { decodeCursor, encodeCursor, type AttachmentKind } from "../cursor.js";
import { invalidArguments, limitExceeded } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { PersonChange } from "../pipeline/person-change.js";
import { fail, ok, type Result } from "../result.js";
import { sourceId } from "./sources.js";
import { Checks, fields } from "../validate.js";

const KINDS = ["sources", "files"] as const;

/** `list_note_attachments`. */
export function listAttachments(ctx: NoteContext, caller: Caller, input: unknown): Result<AttachmentPage> {
  const given = fields(input);
  if (!given.ok) return given;
  const { kind, limit = LIMITS.pageSize, cursor } = given.value;
  const checks = new Checks();
  checks.onlyFields(given.value, ["kind", "limit", "cursor"]);
  checks.oneOf("kind", kind, KINDS);
  checks.integer("limit", limit, 1, LIMITS.pageSize);
  if (cursor !== undefined && typeof cursor !== "string") checks.add("cursor", "must be a string");
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const args = given.value as Input<"list_attachments">;
  const after = args.cursor === undefined ? 0 : decodeCursor(ctx.id, args.kind, args.cursor);
  if (after === null) {
    const problem = `not a cursor this Note issued for ${args.kind}; pass next_cursor exactly as returned, or omit it to start over`;
    return fail(invalidArguments([{ path: "cursor", problem }]));
  }
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  return ok(page(ctx, args.kind, after, limit as number));
}

function page(ctx: NoteContext, kind: AttachmentKind, after: number, limit: number): AttachmentPage {
  // One row more than the page tells whether another page exists.
  const next = (rows: { seq: number }[]) => (rows.length > limit ? encodeCursor(ctx.id, kind, (rows[limit - 1] as { seq: number }).seq) : null);
  if (kind === "sources") {
    const rows = ctx.store.attachments("sources", after, limit + 1);
    const items = rows.slice(0, limit).map((s) => ({ id: sourceId(s.seq), title: s.title, url: s.url, description: s.description, added_at: iso(s.added_at) }));
    return { note_id: ctx.id, kind, items, next_cursor: next(rows) };
  }
  const rows = ctx.store.attachments("files", after, limit + 1);
  const items = rows.slice(0, limit).map((f) => ({ id: fileId(f.seq), name: f.name, media_type: f.media_type, size_bytes: f.size_bytes, added_at: iso(f.added_at) }));
  return { note_id: ctx.id, kind, items, next_cursor: next(rows) };
}

/** The person records a file's metadata (the file itself lives in the app). */
export const ADD_FILE: PersonChange<Input<"add_file">> = {
  name: "add_file",
  fields: ["name", "media_type", "size_bytes"],
  validate: (i, checks) => {
    checks.text("name", i.name, LIMITS.fileNameLength, { required: true, nonBlank: true });
    checks.text("media_type", i.media_type, LIMITS.mediaTypeLength, { required: true, nonBlank: true });
    if (typeof i.media_type === "string" && !/^[\w.+-]+\/[\w.+-]+$/.test(i.media_type)) checks.add("media_type", 'must look like "type/subtype"');
    checks.integer("size_bytes", i.size_bytes, 0, LIMITS.fileSizeBytes, true);
  },
  apply: (ctx, meta, i) => {
    if (meta.file_count >= LIMITS.filesPerNote) return fail(limitExceeded("files_per_note", LIMITS.filesPerNote, "This Note has as many files as it may"));
    const file = { name: i.name.trim(), media_type: i.media_type, size_bytes: i.size_bytes, added_at: ctx.now() };
    const seq = ctx.store.insertFile(file);
    return ok({ meta: { ...meta, file_count: meta.file_count + 1 }, file_id: fileId(seq), names: { file_name: file.name }, undo: [{ do: "file_add" as const, file: { seq, ...file } }] });
  },
};

function fileId(seq: number): string {
  return `file-${seq}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
