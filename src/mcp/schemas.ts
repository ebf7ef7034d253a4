/**
 * The tools' contracts as zod schemas: inputs closed (no unknown field passes),
 * outputs declared so clients can check `structuredContent`, and tied at
 * compile time to the domain's result types so the two cannot drift. Each
 * input field is one of src/edge/fields.ts, the rules the person's API shares,
 * described here for a model; their numbers come from LIMITS, the same ones
 * the Note enforces.
 */
import { z } from "zod";
import {
  cellOrNull,
  cellsOf,
  closed,
  columns,
  cursor,
  expectedVersion as version,
  hitId,
  idempotencyKey as key,
  itemId as anItemId,
  noteId as aNoteId,
  rows,
  searchQuery,
  slideBody,
  slideNotes,
  slides,
  slideTitle,
  sourceDescription,
  sourceTitle,
  tabId as aTabId,
  tabLabel,
  titleFilter,
} from "../edge/fields.js";
import { AGENT_EDITS, type Output, ITEMS_CURSOR_LENGTH, LIMITS } from "../note/index.js";
import type { FetchedItem, SearchHit } from "../note/search/contract.js";

// The fields' rules are src/edge/fields.ts's, shared with the person's API; here they are described for a model.

const noteId = aNoteId.describe("The Note's ID, from list_notes.");

const expectedVersion = version.describe("The Note's version from your latest list_note_tabs; a stale version is refused with version_conflict.");

const idempotencyKey = key.describe(
  "Names this intent. Reuse it unchanged when you resend the same call (e.g. after a timeout) and you get the first result back.",
);

// An empty outline is a mistake, not an empty deck: an empty deck omits `slides`.
const outline = slides(1, LIMITS.slidesPerCall);

const itemId = (what: "slide" | "row", use: string) =>
  anItemId(what).describe(`${use}: the ${what}'s exact ID, e.g. "${what}-12-mh8z1k2a", from read_note_tab or a write's ${what}_ids. Never an index or a title.`);

export const inputs = {
  list_notes: closed({
    title_contains: titleFilter
      .optional()
      .describe("Only Notes whose title contains this text, ignoring case (e.g. \"budget\" finds \"Q3 Budget\"); every character, % and _ too, matches itself."),
    limit: z.int().min(1).max(LIMITS.notesPageSize).optional().describe(`Notes per page, 1 to ${LIMITS.notesPageSize} (default ${LIMITS.notesPageSize}).`),
    cursor: cursor(LIMITS.notesCursorLength).optional().describe("next_cursor from the previous page, exactly as returned."),
  }),
  list_note_tabs: closed({ note_id: noteId }),
  read_note_tab: closed({
    note_id: noteId,
    tab_id: aTabId.describe("The exact tab ID from list_note_tabs, e.g. \"slides-9-mh8z1k2a\" or \"markdown\"."),
    limit: z
      .int()
      .min(1)
      .max(LIMITS.rowsPageSize)
      .optional()
      .describe(
        `Items per page: slides of a slides tab, 1 to ${LIMITS.slidesPageSize} (default ${LIMITS.slidesPageSize}); rows of a Sheet, 1 to ${LIMITS.rowsPageSize} (default ${LIMITS.rowsPageDefault}). Not for the markdown tab, which is read whole.`,
      ),
    cursor: cursor(ITEMS_CURSOR_LENGTH).optional().describe("next_cursor from the previous page of this tab, exactly as returned."),
  }),
  create_note_tab: closed({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    tab_type: z.enum(["slides", "sheet"]).describe("The kind of tab to add. Markdown, Files and Sources tabs are fixed and cannot be created."),
    label: tabLabel.optional().describe("The tab's label; labels need not be unique."),
    slides: outline.optional().describe(`slides: the whole deck's outline, 1 to ${LIMITS.slidesPerCall} slides, in one call; omit it for an empty deck.`),
    columns: columns.optional().describe(`sheet: the column names in order, 1 to ${LIMITS.columnsPerSheet}, each unique.`),
    rows: rows
      .optional()
      .describe(
        `sheet: 1 to ${LIMITS.rowsPerCall} rows, each an object of cells by column name (text of up to ${LIMITS.cellLength} UTF-16 code units, or numbers), e.g. {"Name": "Ada", "Age": 36}; needs columns.`,
      ),
  }),
  edit_note_tab: closed({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    tab_id: aTabId.describe("The exact ID of a slides or Sheet tab, from list_note_tabs or create_note_tab."),
    operation: z
      .enum(AGENT_EDITS)
      .describe(
        "Slides tab: slide_add (title, body?, notes?) or slides_add_outline (slides) append; slide_update (slide_id; title?, body?, notes?: fields left out are kept) and slide_delete (slide_id) change one slide. " +
          "Sheet: rows_append (rows), row_update (row_id, cells: only the cells given; null empties one), row_delete (row_id), columns_add (columns).",
      ),
    title: slideTitle.optional().describe("slide_add (required), slide_update: the slide's title."),
    body: slideBody.optional().describe("slide_add, slide_update: the slide's text."),
    notes: slideNotes.optional().describe("slide_add, slide_update: speaker notes."),
    slides: outline.optional().describe(`slides_add_outline: 1 to ${LIMITS.slidesPerCall} slides to append.`),
    slide_id: itemId("slide", "slide_update, slide_delete").optional(),
    rows: rows.optional().describe(`rows_append: 1 to ${LIMITS.rowsPerCall} rows, each an object of cells by column name (text or numbers).`),
    row_id: itemId("row", "row_update, row_delete").optional(),
    cells: cellsOf(cellOrNull)
      .optional()
      .describe(`row_update: the cells to set, by column name; cells left out are kept, null empties one. A cell holds up to ${LIMITS.cellLength} UTF-16 code units.`),
    columns: columns.optional().describe(`columns_add: column names to append, each new to the Sheet (at most ${LIMITS.columnsPerSheet} in all).`),
  }),
  add_note_source: closed({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    title: sourceTitle.describe("The cited page's title."),
    // Length and characters (a lone surrogate too) are judged with the rest of the URL, so every bad URL answers invalid_url.
    url: z.string().describe(`An http(s) URL, or host/path (taken as https); at most ${LIMITS.urlLength} characters.`),
    description: sourceDescription.optional().describe("Why this source matters."),
  }),
  list_note_attachments: closed({
    note_id: noteId,
    kind: z.enum(["sources", "files"]).describe("Which list to page through."),
    limit: z.int().min(1).max(LIMITS.pageSize).optional().describe(`Items per page, 1 to ${LIMITS.pageSize} (default ${LIMITS.pageSize}).`),
    cursor: cursor(64).optional().describe("next_cursor from the previous page, exactly as returned."),
  }),
  revert_note_change: closed({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    version: z
      .int()
      .min(1)
      .describe("The version of the change to take back, from list_note_changes (an entry with revertible: true) or a write's answer."),
  }),
  search: closed({
    query: searchQuery.describe(
      `Words to find, in any language (up to ${LIMITS.searchQueryLength} characters): accents and case are ignored, and a word inside Japanese or Chinese text is found. ` +
        "Items with more of the words, and rarer ones, come first. Quotes, *, OR, NEAR and the like are searched as plain text, not as operators.",
    ),
    note_id: aNoteId.optional().describe("Search only this Note (its ID from list_notes or an earlier hit); omit it to search every Note you can use."),
    limit: z.int().min(1).max(LIMITS.searchPageSize).optional().describe(`Hits per page, 1 to ${LIMITS.searchPageSize} (default ${LIMITS.searchPageDefault}).`),
    cursor: cursor(LIMITS.searchCursorLength).optional().describe("next_cursor from the previous page of the same search, exactly as returned."),
  }),
  fetch: closed({
    id: hitId.describe('A hit\'s id from search, exactly as returned, e.g. "note-1/slides-9-mh8z1k2a/slide-12-mh8z1k2a".'),
  }),
  list_note_changes: closed({
    note_id: noteId,
    since_version: z.int().min(0).describe("The changes after this version: the version you last saw (0 for the whole log)."),
    limit: z
      .int()
      .min(1)
      .max(LIMITS.changesPageSize)
      .optional()
      .describe(`Changes per page, 1 to ${LIMITS.changesPageSize} (default ${LIMITS.changesPageDefault}).`),
  }),
} as const;

/**
 * Each tool's output schema, built on first use: only tools/list needs them
 * (as JSON Schema), so an isolate that serves tool calls never constructs them.
 */
export function outputSchemas(): Outputs {
  return (builtOutputs ??= buildOutputs());
}

export type Outputs = ReturnType<typeof buildOutputs>;
let builtOutputs: Outputs | undefined;

function buildOutputs() {
  const tabType = z.enum(["markdown", "files", "sources", "slides", "sheet"]);

  const tabSummary = z.object({
    id: z.string(),
    type: tabType,
    label: z.string(),
    position: z.int(),
    slide_count: z.int().optional(),
    row_count: z.int().optional(),
    column_count: z.int().optional(),
  });

  const cells = z.record(z.string(), z.union([z.string(), z.number()]));

  /** What a change touched, by ID (src/note/changes.ts Touched): a log entry names it, and so does a revert's answer. */
  const touched = {
    tab_id: z.string().optional(),
    slide_ids: z.array(z.string()).optional(),
    row_ids: z.array(z.string()).optional(),
    source_id: z.string().optional(),
    file_id: z.string().optional(),
    member: z.string().optional(),
  };

  const changeEntry = z.object({
    version: z.int(),
    at: z.string(),
    actor: z.union([
      z.object({ kind: z.literal("person"), user: z.string() }),
      z.object({ kind: z.literal("agent"), user: z.string(), client_id: z.string(), client_name: z.string().nullable() }),
    ]),
    operation: z.string(),
    ids_omitted: z.int().optional(),
    ...touched,
    note_title: z.string().optional(),
    note_title_before: z.string().optional(),
    tab_label: z.string().optional(),
    tab_label_before: z.string().optional(),
    source_title: z.string().optional(),
    file_name: z.string().optional(),
    reverts: z.int().optional(),
    revertible: z.boolean().optional(),
  });

  /** Where a hit is, by exact IDs (src/note/search/contract.ts, HitIds). */
  const hitIds = {
    note_id: z.string(),
    tab_id: z.string().optional(),
    slide_id: z.string().optional(),
    row_id: z.string().optional(),
    source_id: z.string().optional(),
    file_id: z.string().optional(),
    section: z.int().optional(),
  };
  const hitKind = z.enum(["note", "tab", "slide", "row", "markdown", "source", "file"]);

  const writeResult = { note_id: z.string(), version: z.int(), replayed: z.boolean(), arguments_differ: z.boolean(), current_version: z.int().optional() };

  return {
    list_notes: z.object({
      notes: z.array(z.object({ note_id: z.string(), title: z.string() })),
      next_cursor: z.string().nullable(),
    }),
    list_note_tabs: z.object({ note_id: z.string(), title: z.string(), version: z.int(), tabs: z.array(tabSummary) }),
    read_note_tab: z.object({
      note_id: z.string(),
      version: z.int(),
      tab: tabSummary,
      slides: z.array(z.object({ id: z.string(), index: z.int(), title: z.string(), body: z.string(), notes: z.string() })).optional(),
      columns: z.array(z.string()).optional(),
      rows: z.array(z.object({ id: z.string(), index: z.int(), cells })).optional(),
      next_cursor: z.string().nullable().optional(),
      text: z.string().optional(),
    }),
    create_note_tab: z.object({
      ...writeResult,
      tab_id: z.string(),
      tab_type: z.enum(["slides", "sheet"]),
      label: z.string(),
      position: z.int(),
      slide_count: z.int().optional(),
      slide_ids: z.array(z.string()).optional(),
      columns: z.array(z.string()).optional(),
      row_count: z.int().optional(),
      row_ids: z.array(z.string()).optional(),
    }),
    edit_note_tab: z.object({
      ...writeResult,
      tab_id: z.string(),
      operation: z.enum(AGENT_EDITS).optional(),
      slides_added: z.int().optional(),
      slide_ids: z.array(z.string()).optional(),
      slide_count: z.int().optional(),
      row_ids: z.array(z.string()).optional(),
      row_count: z.int().optional(),
      columns: z.array(z.string()).optional(),
    }),
    add_note_source: z.object({
      ...writeResult,
      source_id: z.string(),
      title: z.string(),
      url: z.string(),
      normalized_url: z.string(),
      already_attached: z.boolean(),
    }),
    list_note_attachments: z.object({
      note_id: z.string(),
      kind: z.enum(["sources", "files"]),
      items: z.union([
        z.array(z.object({ id: z.string(), title: z.string(), url: z.string(), description: z.string(), added_at: z.string() })),
        z.array(z.object({ id: z.string(), name: z.string(), media_type: z.string(), size_bytes: z.int(), added_at: z.string() })),
      ]),
      next_cursor: z.string().nullable(),
    }),
    revert_note_change: z.object({
      ...writeResult,
      reverted_version: z.int(),
      ...touched,
    }),
    search: z.object({
      results: z.array(z.object({ id: z.string(), title: z.string(), url: z.string() })),
      hits: z.array(z.object({ id: z.string(), kind: hitKind, title: z.string(), note_title: z.string(), snippet: z.string(), url: z.string(), ...hitIds })),
      next_cursor: z.string().nullable(),
    }),
    fetch: z.object({
      id: z.string(),
      title: z.string(),
      text: z.string(),
      url: z.string(),
      metadata: z.object({ ...hitIds, kind: hitKind, version: z.int(), note_title: z.string(), truncated: z.boolean(), length: z.int() }),
    }),
    list_note_changes: z.object({
      note_id: z.string(),
      version: z.int(),
      oldest_version: z.int().nullable(),
      changes: z.array(changeEntry),
      next_since_version: z.int().nullable(),
    }),
  } as const;
}

export type ToolName = keyof typeof inputs;

/** What list_notes answers: a page of the user's approved Notes, from the user's directory rather than a Note. */
export interface NoteList {
  notes: { note_id: string; title: string }[];
  /** Pass it back for the next page; null on the last page. */
  next_cursor: string | null;
}

/** A hit as `search` answers it: the Note's description and the URL of the person's page showing it. */
export type FoundHit = Simplify<SearchHit & { url: string }>;

/**
 * What `search` answers. Its text content is `{results}` alone, the shape
 * ChatGPT's connectors read (docs/spec.md §11); the structured content also
 * has the whole hits, with the IDs to act on, and the cursor.
 */
export interface SearchAnswer {
  results: { id: string; title: string; url: string }[];
  hits: FoundHit[];
  next_cursor: string | null;
}

/** What `fetch` answers, text and structured content alike: the item's whole text (bounded) and where the person sees it. */
export type FetchAnswer = Simplify<Omit<FetchedItem, "metadata"> & { url: string; metadata: Simplify<FetchedItem["metadata"]> }>;

/** Each tool's answer in the domain's own types: what its output schema must declare, no more and no less. */
interface ToolOutputs {
  list_notes: NoteList;
  list_note_tabs: Output<"list_tabs">;
  read_note_tab: Output<"read_tab">;
  create_note_tab: Output<"create_tab">;
  edit_note_tab: Output<"edit_tab">;
  add_note_source: Output<"add_source">;
  list_note_attachments: Output<"list_attachments">;
  list_note_changes: Output<"list_changes">;
  revert_note_change: Output<"revert_change">;
  search: SearchAnswer;
  fetch: FetchAnswer;
}

/** True when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type IsUnion<U, All = U> = U extends unknown ? ([All] extends [U] ? false : true) : never;
type KeysOfUnion<U> = U extends unknown ? keyof U : never;
type ValueIn<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U[K] : never) : never;
/**
 * A union of object types as the one object type its output schema declares
 * (MCP wants one JSON object schema): the members' shared fields, then the
 * fields some member lacks as optional; each field's type is the union of the
 * members'; a field optional in a member stays optional. Any other type is itself.
 */
type Flat<U> =
  IsUnion<U> extends true
    ? Simplify<
        { [K in Exclude<Extract<keyof U, string>, OptionalKeys<U>>]: ValueIn<U, K> } & {
          [K in Exclude<KeysOfUnion<U>, keyof U> | OptionalKeys<U>]?: ValueIn<U, K>;
        }
      >
    : U;
/** The fields some member of U declares optional. */
type OptionalKeys<U> = U extends unknown ? { [K in keyof U]-?: object extends Pick<U, K> ? K : never }[keyof U] : never;
type Simplify<T> = { [K in keyof T]: T[K] };

// Changing an output schema or a domain result type alone fails `npm run typecheck` on that tool's line.
({
  list_notes: true,
  list_note_tabs: true,
  read_note_tab: true,
  create_note_tab: true,
  edit_note_tab: true,
  add_note_source: true,
  list_note_attachments: true,
  list_note_changes: true,
  revert_note_change: true,
  search: true,
  fetch: true,
}) satisfies { [K in ToolName]: Same<z.output<Outputs[K]>, Flat<ToolOutputs[K]>> };
