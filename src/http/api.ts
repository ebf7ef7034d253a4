/**
 * The person's API (docs/spec.md §7), served to the desktop app at /api/v1: the
 * Note's other writer. Every change goes through the same Note object and
 * bumps the version exactly like an agent's write. It needs the app's scope,
 * which no connector is granted.
 */
import { Hono, type Context } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { z } from "zod";
import { SCOPES } from "../auth/scopes.js";
import {
  cellOrNull,
  cellsOf,
  closed,
  columns,
  cursor,
  expectedVersion,
  fileName,
  itemId,
  markdown,
  mediaType,
  noteId as noteIdSchema,
  noteTitle,
  parseArguments,
  rows,
  searchQuery,
  slideBody,
  slideNotes,
  slides,
  slideTitle,
  sourceDescription,
  sourceTitle,
  tabLabel,
  titleFilter,
  userId,
} from "../edge/fields.js";
import { invalidArguments, type Issue, type NoteError, ITEMS_CURSOR_LENGTH, LIMITS, clip, type Caller, type CommandName, type Input, type Output, type TabEditName } from "../note/index.js";
import { insufficientScope, withPrincipal, type AppEnv } from "./auth.js";
import { answerError, failWith, limitBody, readJson, type Refuse } from "./edge.js";
import { durableGateway, listNotes } from "./gateway.js";
import { notePagePath, searchAnswer } from "../mcp/results.js";
import { PAGE_ROUTE_NAMES } from "./page-session.js";
import { liveRequest, liveTokenOf } from "../storage/live.js";
import type { ResourceContext } from "../auth/oauth.js";

/** The app API's routes; the OAuth resource server runs them with a verified token. */
export const api = new Hono<AppEnv>().basePath("/api/v1");

api.use("*", withPrincipal, async (c, next) => {
  const denied = insufficientScope(c, c.get("principal"), [SCOPES.app]);
  if (denied !== null) return denied;
  await next();
});

const unusable: Refuse = (problem) => Response.json({ error: invalidArguments([{ path: "(body)", problem }]) }, { status: 400 });
const tooLarge = () => Response.json({ error: { code: "body_too_large", message: `The body is larger than ${LIMITS.apiBodyBytes} bytes.` } }, { status: 413 });
/** A body in another format than JSON (RFC 9110 §15.5.16): it is not read as JSON on a guess. */
const notJson = (type: string | null) =>
  Response.json(
    {
      error: {
        code: "unsupported_media_type",
        message: `The body must be JSON, sent with Content-Type: application/json; this one was sent ${type === null ? "with no Content-Type" : `as ${clip(type, 100)}`}.`,
      },
    },
    { status: 415 },
  );

api.use("*", limitBody(LIMITS.apiBodyBytes, tooLarge, unusable));

const expected_version = expectedVersion.optional();
/** Query text that must be a whole number: "abc" must read "must be a whole number", not the "required" a coerced NaN gives. */
const wholeNumber = z.string().regex(/^-?\d+$/, "must be a whole number").transform(Number);

// Every field's rule is src/edge/fields.ts's, the same the MCP tools read: the two doors refuse alike.
const bodies = {
  create: closed({
    note_id: noteIdSchema.refine((id) => !PAGE_ROUTE_NAMES.includes(id), "is the name of one of the Notes page's routes (/notes/sign-in, /notes/callback, /notes/sign-out); choose another").optional(),
    title: noteTitle,
    markdown: markdown.optional(),
  }),
  approval: closed({ approved: z.boolean(), expected_version }),
  rename: closed({ title: noteTitle, expected_version }),
  deleteNote: closed({ expected_version }),
  member: closed({ user: userId, expected_version }),
  addTab: closed({
    tab_type: z.enum(["slides", "sheet"]),
    label: tabLabel.optional(),
    position: z.int().min(0).optional(),
    expected_version,
  }),
  patchTab: closed({ label: tabLabel.optional(), position: z.int().min(0).optional(), expected_version }).refine(
    (d) => (d.label === undefined) !== (d.position === undefined),
    "give exactly one of label (rename) or position (move)",
  ),
  deleteTab: closed({ expected_version }),
  slides: closed({ slides: slides(0, LIMITS.slidesPerTab), expected_version }),
  addSlides: closed({ slides: slides(1, LIMITS.slidesPerCall), expected_version }),
  // A slide's or a row's PATCH changes its content or moves it (after_id: the one it follows, null for first), not both.
  patchSlide: closed({ title: slideTitle.optional(), body: slideBody.optional(), notes: slideNotes.optional(), after_id: itemId("slide").nullable().optional(), expected_version }).refine(
    (d) => (d.after_id === undefined) !== [d.title, d.body, d.notes].every((f) => f === undefined),
    "give title, body or notes (to change the slide), or after_id (to move it): one of the two",
  ),
  itemChange: closed({ expected_version }),
  columns: closed({ columns, expected_version }),
  rows: closed({ rows, expected_version }),
  patchRow: closed({ cells: cellsOf(cellOrNull).optional(), after_id: itemId("row").nullable().optional(), expected_version }).refine(
    (d) => (d.after_id === undefined) !== (d.cells === undefined),
    "give cells (to change the row), or after_id (to move it): one of the two",
  ),
  markdown: closed({ text: markdown, expected_version }),
  // A citation: add_note_source's fields without the key (the route makes one per request). The version is
  // required, as for the agent: the Note's add_source checks it. The URL's characters are the Note's to judge (invalid_url).
  source: closed({ title: sourceTitle, url: z.string(), description: sourceDescription.optional(), expected_version: expectedVersion }),
  revert: closed({ expected_version: expectedVersion }),
  // File metadata only: content and links are refused as unexpected fields.
  file: closed({
    name: fileName,
    media_type: mediaType,
    size_bytes: z.int().min(0).max(LIMITS.fileSizeBytes),
    expected_version,
  }),
};

/** The query parameters each route reads; any other is refused, never silently ignored. */
const queries = {
  none: closed({}),
  // Many HTTP clients cannot send a body with DELETE: a change may carry its version here instead.
  change: closed({ expected_version: wholeNumber.pipe(z.int().min(1)).optional() }),
  notes: closed({
    limit: wholeNumber.pipe(z.int().min(1).max(LIMITS.notesPageSize)).optional(),
    cursor: cursor(LIMITS.notesCursorLength).optional(),
    title_contains: titleFilter.optional(),
  }),
  tab: closed({
    limit: wholeNumber.pipe(z.int().min(1).max(LIMITS.rowsPageSize)).optional(),
    cursor: cursor(ITEMS_CURSOR_LENGTH).optional(),
  }),
  changes: closed({
    since_version: wholeNumber.pipe(z.int().min(0)),
    limit: wholeNumber.pipe(z.int().min(1).max(LIMITS.changesPageSize)).optional(),
  }),
  // The search tool's fields, with the query as `q`.
  search: closed({
    q: searchQuery,
    note_id: noteIdSchema.optional(),
    limit: wholeNumber.pipe(z.int().min(1).max(LIMITS.searchPageSize)).optional(),
    cursor: cursor(LIMITS.searchCursorLength).optional(),
  }),
  live: closed({ since: wholeNumber.pipe(z.int().min(0)).optional() }),
  changeVersion: closed({ version: wholeNumber.pipe(z.int().min(1)) }),
  attachments: closed({
    kind: z.enum(["sources", "files"]),
    limit: wholeNumber.pipe(z.int().min(1).max(LIMITS.pageSize)).optional(),
    cursor: cursor(64).optional(),
  }),
};

const STATUS: Record<NoteError["code"], 400 | 403 | 404 | 409 | 422> = {
  invalid_arguments: 400,
  invalid_url: 400,
  note_not_found: 404,
  tab_not_found: 404,
  slide_not_found: 404,
  row_not_found: 404,
  note_not_approved: 403,
  note_exists: 409,
  version_conflict: 409,
  idempotency_key_reused: 409,
  wrong_tab_type: 422,
  limit_exceeded: 422,
  revert_conflict: 409,
  change_not_found: 404,
  not_revertible: 422,
  item_not_found: 404,
};

/** A path's Note ID (or POST /notes's), judged by the tools' rule so that a bad one is told in the tools' words. */
const pathNoteId = z.object({ note_id: noteIdSchema });

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
  const id = parseArguments(pathNoteId, { note_id: noteId });
  if (!id.ok) return errorResponse(c, id.error);
  const parsed = parseArguments(schema, source);
  if (!parsed.ok) return errorResponse(c, parsed.error);
  const caller: Caller = { user: c.get("principal").user, channel: "app" };
  const result = await durableGateway(c.env).execute(id.value.note_id, caller, name, shape(parsed.value as Record<string, unknown>));
  return result.ok ? c.json(result.value as object, status) : errorResponse(c, result.error as NoteError);
}

function errorResponse(c: Context<AppEnv>, error: NoteError): Response {
  // The routes it names, with this request's Note in them when the path has a valid one,
  // and the tab the error is about when it names one that exists (a slide or row not in it).
  const id = noteIdSchema.safeParse(c.req.param("id"));
  const tab = error.code !== "tab_not_found" && "tab_id" in error && typeof error.tab_id === "string" ? error.tab_id : null;
  const terms = (text: string) => {
    const routes = inApiTerms(text);
    const withNote = id.success ? routes.replaceAll("{note_id}", id.data) : routes;
    return tab === null ? withNote : withNote.replaceAll("{tab_id}", encodeURIComponent(tab));
  };
  const told: NoteError = { ...error, message: terms(error.message) };
  if ("issues" in told) told.issues = told.issues.map((issue) => ({ ...issue, problem: terms(issue.problem) }));
  if ("hint" in told) told.hint = terms(told.hint);
  return c.json({ error: told }, STATUS[error.code]);
}

/** The Note's messages name the agents' tools; the person's app reads the routes that do the same. */
const TOOL_ROUTES: Readonly<Record<string, string>> = {
  list_notes: "GET /api/v1/notes",
  list_note_tabs: "GET /api/v1/notes/{note_id}",
  read_note_tab: "GET /api/v1/notes/{note_id}/tabs/{tab_id}",
  list_note_attachments: "GET /api/v1/notes/{note_id}/attachments",
  list_note_changes: "GET /api/v1/notes/{note_id}/changes",
};

function inApiTerms(message: string): string {
  return message
    .replace(/\b(list_notes|list_note_tabs|read_note_tab|list_note_attachments|list_note_changes)\b/g, (tool) => TOOL_ROUTES[tool] as string)
    .replace(/\b[a-z]+_[a-z_]+ edits a (slides|sheet) tab\b/g, "this route edits a $1 tab");
}

/**
 * The request's arguments: its JSON body ({} when empty), and the query's
 * parameters as `query` reads them. A parameter also in the body is refused
 * rather than one of the two silently winning, even when they agree.
 */
async function argumentsOf(c: Context<AppEnv>, query: z.ZodType = queries.change): Promise<unknown> {
  const read = await readJson(c.req.raw, unusable, notJson);
  const body = read === undefined ? {} : read;
  const parsed = parseArguments(query, queryOf(c));
  if (!parsed.ok) throw failWith(errorResponse(c, parsed.error));
  const fromQuery = parsed.value as Record<string, unknown>;
  if (Object.keys(fromQuery).length === 0 || typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const twice = Object.keys(fromQuery).filter((name) => Object.hasOwn(body, name));
  if (twice.length > 0) throw refusal(c, twice.map((path) => ({ path, problem: "given in both the query string and the body; give it once" })));
  return { ...body, ...fromQuery };
}

/** The query's parameters, each given once: one given twice is refused, not read as its first value. */
function queryOf(c: Context<AppEnv>): Record<string, string> {
  // Hono keeps a parameter whose escapes are not UTF-8 (`%FF`) as its raw text: refuse it instead of searching for "%FF".
  const garbled = rawQueryPairs(c.req.url).filter(([name, value]) => decoded(name) === null || decoded(value) === null);
  if (garbled.length > 0) throw refusal(c, garbled.map(([name]) => ({ path: decoded(name) ?? clip(name, 64), problem: "is not valid percent-encoded UTF-8" })));
  const repeated = Object.entries(c.req.queries()).filter(([, values]) => values.length > 1);
  if (repeated.length > 0) throw refusal(c, repeated.map(([path]) => ({ path, problem: "given more than once" })));
  return c.req.query();
}

/** The query's `name=value` pairs, still percent-encoded. */
function rawQueryPairs(url: string): [string, string][] {
  const query = url.includes("?") ? url.slice(url.indexOf("?") + 1).split("#")[0] as string : "";
  return query.split("&").filter((pair) => pair !== "").map((pair) => {
    const at = pair.indexOf("=");
    return at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)];
  });
}

/** A query component as form decoding reads it, or null when its escapes are not UTF-8. */
function decoded(component: string): string | null {
  try {
    return decodeURIComponent(component.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

function refusal(c: Context<AppEnv>, issues: Issue[]): Error {
  return failWith(errorResponse(c, invalidArguments(issues)));
}

api.onError(answerError);

// Every Note the person is a member of, approved or not, paged and filtered as list_notes is.
api.get("/notes", async (c) => {
  const query = parseArguments(queries.notes, queryOf(c));
  if (!query.ok) return errorResponse(c, query.error);
  const page = await listNotes(c.env, c.get("principal").user, query.value, false);
  return page.ok ? c.json(page.value) : errorResponse(c, page.error);
});

/**
 * The person's search (docs/spec.md §11): every Note they are a member of, approved or
 * not, or the one `note_id` names; the answer is the search tool's structured content.
 */
api.get("/search", async (c) => {
  const parsed = parseArguments(queries.search, queryOf(c));
  if (!parsed.ok) return errorResponse(c, parsed.error);
  const { q, ...rest } = parsed.value as { q: string; note_id?: string; limit?: number; cursor?: string };
  const caller: Caller = { user: c.get("principal").user, channel: "app" };
  const page = await durableGateway(c.env).search(caller, { query: q, ...rest });
  if (!page.ok) return errorResponse(c, page.error as NoteError);
  const origin = new URL(c.req.url).origin;
  return c.json(searchAnswer(page.value, (noteId, tabId) => `${origin}${notePagePath(noteId, tabId)}`));
});

api.post("/notes", async (c) => {
  const body = await argumentsOf(c, queries.none);
  const given = (body as { note_id?: unknown } | null)?.note_id;
  const noteId = typeof given === "string" ? given : `note-${crypto.randomUUID()}`;
  return run(c, noteId, "create_note", bodies.create, body, ({ note_id: _id, ...rest }) => rest as Input<"create_note">, 201);
});

api.get("/notes/:id", (c) => run(c, c.req.param("id"), "read_note", queries.none, queryOf(c)));

api.patch("/notes/:id", async (c) => run(c, c.req.param("id"), "rename_note", bodies.rename, await argumentsOf(c)));

api.delete("/notes/:id", async (c) => run(c, c.req.param("id"), "delete_note", bodies.deleteNote, await argumentsOf(c)));

api.get("/notes/:id/attachments", (c) => run(c, c.req.param("id"), "list_attachments", queries.attachments, queryOf(c)));

api.put("/notes/:id/approval", async (c) => run(c, c.req.param("id"), "set_approval", bodies.approval, await argumentsOf(c)));

api.post("/notes/:id/members", async (c) => run(c, c.req.param("id"), "add_member", bodies.member, await argumentsOf(c)));

api.delete("/notes/:id/members/:user", async (c) =>
  run(c, c.req.param("id"), "remove_member", bodies.itemChange, await argumentsOf(c), (d) => ({ ...d, user: c.req.param("user") })),
);

api.get("/notes/:id/changes", (c) => run(c, c.req.param("id"), "list_changes", queries.changes, queryOf(c)));

/** A change's version in the path, judged as the query's whole numbers are. */
function pathVersion(c: Context<AppEnv>): number | Response {
  const parsed = parseArguments(queries.changeVersion, { version: c.req.param("version") });
  return parsed.ok ? (parsed.value as { version: number }).version : errorResponse(c, parsed.error);
}

api.get("/notes/:id/changes/:version", (c) => {
  const query = parseArguments(queries.none, queryOf(c));
  if (!query.ok) return errorResponse(c, query.error);
  const version = pathVersion(c);
  if (version instanceof Response) return version;
  return run(c, c.req.param("id"), "read_change", queries.none, {}, () => ({ version }));
});

api.post("/notes/:id/changes/:version/revert", async (c) => {
  const body = await argumentsOf(c, queries.none);
  const version = pathVersion(c);
  if (version instanceof Response) return version;
  return run(c, c.req.param("id"), "undo_change", bodies.revert, body, (d) => ({ ...(d as { expected_version: number }), version }));
});

api.post("/notes/:id/tabs", async (c) => run(c, c.req.param("id"), "add_tab", bodies.addTab, await argumentsOf(c), undefined, 201));

api.patch("/notes/:id/tabs/:tab", async (c) => {
  const body = await argumentsOf(c);
  const tab_id = c.req.param("tab");
  const moving = typeof body === "object" && body !== null && "position" in body;
  if (moving) return run(c, c.req.param("id"), "move_tab", bodies.patchTab, body, (d) => ({ ...(d as { position: number }), tab_id }));
  return run(c, c.req.param("id"), "rename_tab", bodies.patchTab, body, (d) => ({ ...(d as { label: string }), tab_id }));
});

api.delete("/notes/:id/tabs/:tab", async (c) =>
  run(c, c.req.param("id"), "delete_tab", bodies.deleteTab, await argumentsOf(c), (d) => ({ ...d, tab_id: c.req.param("tab") })),
);

api.put("/notes/:id/tabs/:tab/slides", async (c) =>
  run(c, c.req.param("id"), "set_slides", bodies.slides, await argumentsOf(c), (d) => ({ ...(d as Input<"set_slides">), tab_id: c.req.param("tab") })),
);

api.get("/notes/:id/tabs/:tab", (c) => run(c, c.req.param("id"), "read_tab", queries.tab, queryOf(c), (d) => ({ ...d, tab_id: c.req.param("tab") })));

/**
 * Runs one edit of a tab's content (src/note/tabs/edit.ts), with the tab and
 * the slide or row from the path; a PATCH picks its operation from the body
 * (after_id moves, anything else changes the content).
 */
async function change(
  c: Context<AppEnv>,
  operation: TabEditName | ((body: unknown) => TabEditName),
  schema: z.ZodType,
  item?: "slide" | "row",
  status: 200 | 201 = 200,
): Promise<Response> {
  const body = await argumentsOf(c);
  const named = item === undefined ? {} : { [`${item}_id`]: c.req.param(item) as string };
  const op = typeof operation === "function" ? operation(body) : operation;
  return run(c, c.req.param("id") as string, "change_tab", schema, body, (d) => ({ ...d, ...named, tab_id: c.req.param("tab"), operation: op }) as Input<"change_tab">, status);
}

const moveOr = (move: TabEditName, update: TabEditName) => (body: unknown) => (typeof body === "object" && body !== null && "after_id" in body ? move : update);

api.post("/notes/:id/tabs/:tab/slides", (c) => change(c, "slides_add_outline", bodies.addSlides, undefined, 201));
api.patch("/notes/:id/tabs/:tab/slides/:slide", (c) => change(c, moveOr("slide_move", "slide_update"), bodies.patchSlide, "slide"));
api.delete("/notes/:id/tabs/:tab/slides/:slide", (c) => change(c, "slide_delete", bodies.itemChange, "slide"));
api.post("/notes/:id/tabs/:tab/columns", (c) => change(c, "columns_add", bodies.columns, undefined, 201));
api.post("/notes/:id/tabs/:tab/rows", (c) => change(c, "rows_append", bodies.rows, undefined, 201));
api.patch("/notes/:id/tabs/:tab/rows/:row", (c) => change(c, moveOr("row_move", "row_update"), bodies.patchRow, "row"));
api.delete("/notes/:id/tabs/:tab/rows/:row", (c) => change(c, "row_delete", bodies.itemChange, "row"));

/**
 * The Note's live socket (docs/live.md). The resource server has checked the
 * token (a Bearer header; the page's cookie is bridged into one); a browser
 * page of another origin must not ride on it, so an `Origin` must be this
 * server's own. The object checks membership and accepts the socket; the
 * user reaches it in a request built here, so no incoming header can name one.
 */
api.get("/notes/:id/live", async (c) => {
  const origin = c.req.header("Origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin) {
    return c.json({ error: { code: "forbidden_origin", message: `A page of ${clip(origin, 100)} may not open this server's live updates.` } }, 403);
  }
  if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
    c.header("Upgrade", "websocket");
    return c.json({ error: { code: "upgrade_required", message: "This route opens a WebSocket: send the request with Upgrade: websocket." } }, 426);
  }
  const id = parseArguments(pathNoteId, { note_id: c.req.param("id") });
  if (!id.ok) return errorResponse(c, id.error);
  const query = parseArguments(queries.live, queryOf(c));
  if (!query.ok) return errorResponse(c, query.error);
  const since = (query.value as { since?: number }).since ?? null;
  const opening = liveRequest({ noteId: id.value.note_id, user: c.get("principal").user, since, token: await liveTokenOf((c.executionCtx as ResourceContext).auth) });
  const answer = await c.env.NOTES.get(c.env.NOTES.idFromName(id.value.note_id)).fetch(opening);
  if (answer.webSocket !== null) return answer;
  return errorResponse(c, ((await answer.json()) as { error: NoteError }).error);
});

api.put("/notes/:id/markdown", async (c) => run(c, c.req.param("id"), "set_markdown", bodies.markdown, await argumentsOf(c)));

/**
 * The person cites a page: the agent's own `add_source` (the same checks, URL normal form and
 * dedupe), with an idempotency key of this request's own, since the person's API has no keys.
 * A page already cited answers 200 with the existing source and `already_attached: true`,
 * nothing written; a new one 201.
 */
api.post("/notes/:id/sources", async (c) => {
  const id = parseArguments(pathNoteId, { note_id: c.req.param("id") });
  if (!id.ok) return errorResponse(c, id.error);
  const parsed = parseArguments(bodies.source, await argumentsOf(c));
  if (!parsed.ok) return errorResponse(c, parsed.error);
  const caller: Caller = { user: c.get("principal").user, channel: "app" };
  const input = { ...(parsed.value as Omit<Input<"add_source">, "idempotency_key">), idempotency_key: `app-${crypto.randomUUID()}` };
  const result = await durableGateway(c.env).execute(id.value.note_id, caller, "add_source", input);
  if (!result.ok) return errorResponse(c, result.error as NoteError);
  const { note_id, version, source_id, title, url, normalized_url, already_attached } = result.value as Output<"add_source">;
  return c.json({ note_id, version, source_id, title, url, normalized_url, already_attached }, already_attached ? 200 : 201);
});

api.post("/notes/:id/files", async (c) => run(c, c.req.param("id"), "add_file", bodies.file, await argumentsOf(c), undefined, 201));

/** Every route's methods by path: what a 405's `Allow` lists. Built once all routes are declared. */
const methodsByPath = new TrieRouter<string>();
for (const route of api.routes) if (route.method !== "ALL") methodsByPath.add("ALL", route.path, route.method);
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

// No route matched: a path the API has (405, RFC 9110 §15.5.6, with Allow) or one it has not (404), in the API's error shape.
api.notFound((c) => {
  const methods = new Set(methodsByPath.match("GET", c.req.path)[0].map(([method]) => method));
  if (methods.size === 0) return c.json({ error: { code: "not_found", message: `No such route: ${c.req.method} ${c.req.path}. docs/api.md lists the API's routes.` } }, 404);
  // Hono answers HEAD with the GET route.
  if (methods.has("GET")) methods.add("HEAD");
  const allow = METHOD_ORDER.filter((method) => methods.has(method)).join(", ");
  c.header("Allow", allow);
  return c.json({ error: { code: "method_not_allowed", message: `${c.req.path} does not take ${c.req.method}; it takes ${allow}.` } }, 405);
});
