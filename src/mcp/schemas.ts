/**
 * The tools' contracts as zod schemas: inputs closed (no unknown field passes),
 * outputs declared so clients can check `structuredContent`. The numbers come
 * from LIMITS, the same ones the Note enforces.
 */
import { z } from "zod";
import { LIMITS } from "../note/limits.js";

export const NOTE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export const noteId = z
  .string()
  .min(1)
  .max(LIMITS.noteIdLength)
  .regex(NOTE_ID_PATTERN, "must be letters, digits, '-' or '_', starting with a letter or digit")
  .describe("The Note's ID, from list_notes.");

const expectedVersion = z
  .int()
  .min(1)
  .describe("The Note's version from your latest list_note_tabs; a stale version is refused with version_conflict.");

const idempotencyKey = z
  .string()
  .min(1)
  .max(LIMITS.idempotencyKeyLength)
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII characters")
  .describe("Names this intent. Reuse it unchanged when you resend the same call (e.g. after a timeout) and you get the first result back.");

const slide = z.strictObject({
  title: z.string().min(1).max(LIMITS.slideTitleLength).describe("The slide's title."),
  body: z.string().max(LIMITS.slideBodyLength).optional().describe("The slide's text, plain or Markdown."),
  notes: z.string().max(LIMITS.slideNotesLength).optional().describe("Speaker notes."),
});

const outline = z.array(slide).max(LIMITS.slidesPerCall);

export const inputs = {
  list_notes: z.strictObject({}),
  list_note_tabs: z.strictObject({ note_id: noteId }),
  read_note_tab: z.strictObject({
    note_id: noteId,
    tab_id: z.string().min(1).max(100).describe("The exact tab ID from list_note_tabs, e.g. \"slides-9-mh8z1k2a\" or \"markdown\"."),
  }),
  create_note_tab: z.strictObject({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    tab_type: z.enum(["slides", "sheet"]).describe("The kind of tab to add. Markdown, Files and Sources tabs are fixed and cannot be created."),
    label: z.string().min(1).max(LIMITS.tabLabelLength).optional().describe("The tab's label; labels need not be unique."),
    slides: outline.optional().describe(`The whole deck's outline, up to ${LIMITS.slidesPerCall} slides, in one call.`),
  }),
  edit_note_tab: z.strictObject({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    tab_id: z.string().min(1).max(100).describe("The exact ID of a slides tab, from list_note_tabs or create_note_tab."),
    operation: z
      .enum(["slide_add", "slides_add_outline"])
      .describe("slide_add appends one slide (title, body?, notes?); slides_add_outline appends the slides in `slides`."),
    title: z.string().min(1).max(LIMITS.slideTitleLength).optional().describe("slide_add: the new slide's title (required)."),
    body: z.string().max(LIMITS.slideBodyLength).optional().describe("slide_add: the new slide's text."),
    notes: z.string().max(LIMITS.slideNotesLength).optional().describe("slide_add: speaker notes."),
    slides: outline.min(1).optional().describe(`slides_add_outline: 1 to ${LIMITS.slidesPerCall} slides to append.`),
  }),
  add_note_source: z.strictObject({
    note_id: noteId,
    expected_version: expectedVersion,
    idempotency_key: idempotencyKey,
    title: z.string().min(1).max(LIMITS.sourceTitleLength).describe("The cited page's title."),
    // Length and characters are judged with the rest of the URL, so every bad URL answers invalid_url.
    url: z.string().describe(`An http(s) URL, or host/path (taken as https); at most ${LIMITS.urlLength} characters.`),
    description: z.string().max(LIMITS.sourceDescriptionLength).optional().describe("Why this source matters."),
  }),
  list_note_attachments: z.strictObject({
    note_id: noteId,
    kind: z.enum(["sources", "files"]).describe("Which list to page through."),
    limit: z.int().min(1).max(LIMITS.pageSize).optional().describe(`Items per page, 1 to ${LIMITS.pageSize} (default ${LIMITS.pageSize}).`),
    cursor: z.string().min(1).max(64).optional().describe("next_cursor from the previous page, exactly as returned."),
  }),
} as const;

const tabType = z.enum(["markdown", "files", "sources", "slides", "sheet"]);

const tabSummary = z.object({
  id: z.string(),
  type: tabType,
  label: z.string(),
  position: z.int(),
  slide_count: z.int().optional(),
});

const writeResult = { note_id: z.string(), version: z.int(), replayed: z.boolean() };

export const outputs = {
  list_notes: z.object({
    notes: z.array(z.object({ note_id: z.string(), title: z.string() })),
  }),
  list_note_tabs: z.object({ note_id: z.string(), title: z.string(), version: z.int(), tabs: z.array(tabSummary) }),
  read_note_tab: z.object({
    note_id: z.string(),
    version: z.int(),
    tab: tabSummary,
    slides: z.array(z.object({ index: z.int(), title: z.string(), body: z.string(), notes: z.string() })).optional(),
    text: z.string().optional(),
  }),
  create_note_tab: z.object({
    ...writeResult,
    tab_id: z.string(),
    tab_type: z.enum(["slides", "sheet"]),
    label: z.string(),
    position: z.int(),
    slide_count: z.int(),
  }),
  edit_note_tab: z.object({ ...writeResult, tab_id: z.string(), slides_added: z.int(), slide_count: z.int() }),
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
    items: z.array(
      z.union([
        z.object({ id: z.string(), title: z.string(), url: z.string(), description: z.string(), added_at: z.string() }),
        z.object({ id: z.string(), name: z.string(), media_type: z.string(), size_bytes: z.int(), added_at: z.string() }),
      ]),
    ),
    next_cursor: z.string().nullable(),
  }),
} as const;

export type ToolName = keyof typeof inputs;
