/**
 * The person's API (SPEC §7), served to the desktop app at /api/v1: the
 * Note's other writer. Every change goes through the same Note object and
 * bumps the version exactly like an agent's write. It needs the app's scope,
 * which no connector is granted.
 */
import { Hono, type Context } from "hono";
import { z } from "zod";
import { SCOPES } from "../auth/scopes.js";
import { noteId as noteIdSchema } from "../mcp/schemas.js";
import { parseArguments } from "../mcp/server.js";
import type { Caller, CommandName, Input } from "../note/commands.js";
import { invalidArguments, type NoteError } from "../note/errors.js";
import { LIMITS } from "../note/limits.js";
import { insufficientScope, withPrincipal, type AppEnv } from "./auth.js";
import { answerError, limitBody, readJson, type Refuse } from "./edge.js";
import { durableGateway } from "./gateway.js";

/** The app API's routes; the OAuth resource server runs them with a verified token. */
export const api = new Hono<AppEnv>().basePath("/api/v1");

api.use("*", withPrincipal, async (c, next) => {
  const denied = insufficientScope(c, [SCOPES.app]);
  if (denied !== null) return denied;
  await next();
});

const unusable: Refuse = (problem) => Response.json({ error: invalidArguments([{ path: "(body)", problem }]) }, { status: 400 });
const tooLarge = () => Response.json({ error: { code: "body_too_large", message: `The body is larger than ${LIMITS.apiBodyBytes} bytes.` } }, { status: 413 });

api.use("*", limitBody(LIMITS.apiBodyBytes, tooLarge, unusable));

const expected_version = z.int().min(1).optional();
const slide = z.strictObject({
  title: z.string().min(1).max(LIMITS.slideTitleLength),
  body: z.string().max(LIMITS.slideBodyLength).optional(),
  notes: z.string().max(LIMITS.slideNotesLength).optional(),
});

const bodies = {
  create: z.strictObject({
    note_id: noteIdSchema.optional(),
    title: z.string().min(1).max(LIMITS.noteTitleLength),
    markdown: z.string().max(LIMITS.markdownLength).optional(),
  }),
  approval: z.strictObject({ approved: z.boolean(), expected_version }),
  member: z.strictObject({ user: z.string().min(1).max(LIMITS.userIdLength), expected_version }),
  addTab: z.strictObject({
    tab_type: z.enum(["slides", "sheet"]),
    label: z.string().min(1).max(LIMITS.tabLabelLength).optional(),
    position: z.int().min(0).optional(),
    expected_version,
  }),
  patchTab: z
    .strictObject({ label: z.string().min(1).max(LIMITS.tabLabelLength).optional(), position: z.int().min(0).optional(), expected_version })
    .refine((d) => (d.label === undefined) !== (d.position === undefined), "give exactly one of label (rename) or position (move)"),
  deleteTab: z.strictObject({ expected_version }),
  slides: z.strictObject({ slides: z.array(slide).max(LIMITS.slidesPerTab), expected_version }),
  markdown: z.strictObject({ text: z.string().max(LIMITS.markdownLength), expected_version }),
  // File metadata only: content and links are refused as unexpected fields.
  file: z.strictObject({
    name: z.string().min(1).max(LIMITS.fileNameLength),
    media_type: z.string().min(1).max(LIMITS.mediaTypeLength),
    size_bytes: z.int().min(0).max(LIMITS.fileSizeBytes),
    expected_version,
  }),
  attachments: z.strictObject({
    kind: z.enum(["sources", "files"]),
    // A query value is text: "abc" must read "must be a whole number", not the "required" a coerced NaN gives.
    limit: z.string().regex(/^\d{1,9}$/, "must be a whole number").transform(Number).pipe(z.int().min(1).max(LIMITS.pageSize)).optional(),
    cursor: z.string().min(1).max(64).optional(),
  }),
};

const STATUS: Record<NoteError["code"], 400 | 403 | 404 | 409 | 422> = {
  invalid_arguments: 400,
  invalid_url: 400,
  note_not_found: 404,
  tab_not_found: 404,
  note_not_approved: 403,
  note_exists: 409,
  version_conflict: 409,
  idempotency_key_reused: 409,
  wrong_tab_type: 422,
  limit_exceeded: 422,
};

/** Validates the body (or query), runs the operation on the Note, and answers. */
async function run<K extends CommandName>(
  c: Context<AppEnv>,
  noteId: string,
  name: K,
  schema: z.ZodType,
  source: unknown,
  shape: (data: Record<string, unknown>) => Input<K> = (data) => data as Input<K>,
  status: 200 | 201 = 200,
): Promise<Response> {
  const id = noteIdSchema.safeParse(noteId);
  if (!id.success) return errorResponse(c, invalidArguments([{ path: "note_id", problem: "must be 1 to 64 letters, digits, '-' or '_'" }]));
  const parsed = parseArguments(schema, source);
  if (!parsed.ok) return errorResponse(c, parsed.error);
  const caller: Caller = { user: c.get("principal").user, channel: "app" };
  const result = await durableGateway(c.env).execute(id.data, caller, name, shape(parsed.value as Record<string, unknown>));
  return result.ok ? c.json(result.value as object, status) : errorResponse(c, result.error as NoteError);
}

function errorResponse(c: Context<AppEnv>, error: NoteError): Response {
  return c.json({ error }, STATUS[error.code]);
}

/** The JSON body ({} when empty), or a value the schema refuses with a clear message. */
async function json(c: Context<AppEnv>): Promise<unknown> {
  const body = await readJson(c.req.raw, unusable);
  return body === undefined ? {} : body;
}

api.onError(answerError);

api.get("/notes", async (c) => {
  const entries = await c.env.DIRECTORY.get(c.env.DIRECTORY.idFromName(c.get("principal").user)).list();
  return c.json({ notes: entries });
});

api.post("/notes", async (c) => {
  const body = await json(c);
  const given = (body as { note_id?: unknown } | null)?.note_id;
  const noteId = typeof given === "string" ? given : `note-${crypto.randomUUID()}`;
  return run(c, noteId, "create_note", bodies.create, body, ({ note_id: _id, ...rest }) => rest as Input<"create_note">, 201);
});

api.get("/notes/:id", (c) => run(c, c.req.param("id"), "read_note", z.strictObject({}), {}));

api.get("/notes/:id/attachments", (c) => run(c, c.req.param("id"), "list_attachments", bodies.attachments, c.req.query()));

api.put("/notes/:id/approval", async (c) => run(c, c.req.param("id"), "set_approval", bodies.approval, await json(c)));

api.post("/notes/:id/members", async (c) => run(c, c.req.param("id"), "add_member", bodies.member, await json(c)));

api.post("/notes/:id/tabs", async (c) => run(c, c.req.param("id"), "add_tab", bodies.addTab, await json(c), undefined, 201));

api.patch("/notes/:id/tabs/:tab", async (c) => {
  const body = await json(c);
  const tab_id = c.req.param("tab");
  const moving = typeof body === "object" && body !== null && "position" in body;
  if (moving) return run(c, c.req.param("id"), "move_tab", bodies.patchTab, body, (d) => ({ ...(d as { position: number }), tab_id }));
  return run(c, c.req.param("id"), "rename_tab", bodies.patchTab, body, (d) => ({ ...(d as { label: string }), tab_id }));
});

api.delete("/notes/:id/tabs/:tab", async (c) =>
  run(c, c.req.param("id"), "delete_tab", bodies.deleteTab, await json(c), (d) => ({ ...d, tab_id: c.req.param("tab") })),
);

api.put("/notes/:id/tabs/:tab/slides", async (c) =>
  run(c, c.req.param("id"), "set_slides", bodies.slides, await json(c), (d) => ({ ...(d as Input<"set_slides">), tab_id: c.req.param("tab") })),
);

api.put("/notes/:id/markdown", async (c) => run(c, c.req.param("id"), "set_markdown", bodies.markdown, await json(c)));

api.post("/notes/:id/files", async (c) => run(c, c.req.param("id"), "add_file", bodies.file, await json(c), undefined, 201));
