/**
 * The MCP tools (docs/spec.md §2): what each tells an agent, what it may touch, the
 * scopes it needs, and which Note operation it runs. Descriptions are part of
 * the contract: they teach the three promises (exact tab IDs, keys that name
 * an intent, versions from a fresh list).
 */
import { SCOPES } from "../auth/scopes.js";
import { CHANGES_KEPT, LIMITS, type CommandName } from "../note/index.js";
import { FETCH_CHARS } from "../note/search/contract.js";
import type { ToolName } from "./schemas.js";

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  scopes: readonly string[];
  readOnly: boolean;
  /** The Note operation it runs; list_notes reads the user's directory instead, and search and fetch go through the gateway (src/mcp/server.ts). */
  command: CommandName | null;
}

const READ = [SCOPES.read] as const;
const WRITE = [SCOPES.write] as const;

const WRITE_RULES =
  "Take expected_version from your latest list_note_tabs (or from the previous write's result). " +
  "idempotency_key names this intent: if a call times out or its answer is lost, resend the very same call with the same key; " +
  "a resent key returns the first result with replayed: true instead of a duplicate, and current_version, the Note's version now, for your next write. " +
  "arguments_differ: true means your resend did not match the first call: the first call's result stands; use a new key for a new intent.";

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "search",
    title: "Search your Notes",
    description:
      "Finds slides, Sheet rows, Markdown sections, sources, files, tabs and Notes by their words, in every Note you can use through this connector, or in one (note_id). " +
      "Any language: case and accents are ignored (perche finds perché), and a word inside Japanese or Chinese text is found. Best hits first. " +
      "Each hit's id is its exact IDs joined by '/': note_id/tab_id/slide_id (or row_id, source_id, file_id), note_id/markdown/section-n, note_id/tab_id, or note_id alone. " +
      "Use those IDs as they are to act on the hit: edit_note_tab with that tab_id and slide_id or row_id (slide_update, row_update), after list_note_tabs for expected_version. " +
      "Call fetch with a hit's id for its whole text. The structured result also lists each hit's IDs by name, its kind, note_title, a snippet with the matched words, and url, the person's page showing it. " +
      `Up to ${LIMITS.searchPageSize} hits per page (default ${LIMITS.searchPageDefault}); pass next_cursor back as cursor, with the same query, for more until it is null.`,
    scopes: READ,
    readOnly: true,
    command: null,
  },
  {
    name: "fetch",
    title: "Read a search hit",
    description:
      "Reads the whole text of one hit by its id from search: a slide (title, body, speaker notes), a Sheet row (each cell with its column), a Markdown section, " +
      "a source (title, URL, description), a file's name, a tab (its label and its items' titles), or a Note's outline (its tabs, a deck's slide titles). " +
      `Answers id, title, text, url (the person's page showing it) and metadata: the exact IDs (note_id, tab_id, slide_id, row_id, source_id, file_id), kind, note_title, and the Note's version now, usable as expected_version for an edit. ` +
      `The text is at most ${FETCH_CHARS.toLocaleString("en-US")} characters: metadata.truncated says when it was cut and length gives the whole; read_note_tab reads the rest. ` +
      "A hit from a Note you can no longer use answers note_not_found (or note_not_approved); an item deleted since the search, item_not_found.",
    scopes: READ,
    readOnly: true,
    command: null,
  },
  {
    name: "list_notes",
    title: "List Notes",
    description:
      "Lists the Notes you can use through this connector (you are a member and the Note is approved), with their IDs, ordered by ID. " +
      `To find a Note by name, pass a fragment of its title in title_contains (case is ignored). Up to ${LIMITS.notesPageSize} Notes per call; ` +
      "pass next_cursor back to get the next page until it is null.",
    scopes: READ,
    readOnly: true,
    command: null,
  },
  {
    name: "list_note_tabs",
    title: "List a Note's tabs",
    description:
      "Lists every tab of a Note in strip order, with each tab's exact id, type and label, and the Note's current version. " +
      "Tabs are identified only by id: people reorder and rename tabs, and labels need not be unique, so keep and reuse the id. " +
      "Call this before writing to get expected_version.",
    scopes: READ,
    readOnly: true,
    command: "list_tabs",
  },
  {
    name: "read_note_tab",
    title: "Read a tab",
    description:
      "Reads one tab's content by its exact id: a page of a slides tab's slides (each with its id, index, title, body and notes), " +
      "a page of a Sheet's rows (its columns, then each row's id, index and cells by column name), or the whole text of the markdown tab. " +
      "A slide's or row's id never changes and is never reused: keep it to name that exact slide or row in edit_note_tab. " +
      `A page holds up to ${LIMITS.slidesPageSize} slides or ${LIMITS.rowsPageSize} rows (limit; rows default to ${LIMITS.rowsPageDefault}) and next_cursor; ` +
      "pass it back as cursor for the next page, until next_cursor is null; a page of long slides or rows holds fewer. " +
      "index is the place as this paging counts it (re-read from the start for exact places after deletions).",
    scopes: READ,
    readOnly: true,
    command: "read_tab",
  },
  {
    name: "create_note_tab",
    title: "Create a tab",
    description:
      `Adds a Slides or Sheet tab at the end of the strip and returns its exact tab_id: keep it for every later edit. ` +
      `A deck: put its whole outline (up to ${LIMITS.slidesPerCall} slides) in \`slides\` in this one call; you get slide_ids, the slides' exact IDs in order. ` +
      `A Sheet: name its columns (up to ${LIMITS.columnsPerSheet}) in \`columns\` and give up to ${LIMITS.rowsPerCall} \`rows\`, each an object of cells by column name; you get row_ids. ` +
      `Keep those IDs to correct a slide or row later. ${WRITE_RULES}`,
    scopes: WRITE,
    readOnly: false,
    command: "create_tab",
  },
  {
    name: "edit_note_tab",
    title: "Edit a tab's slides or rows",
    description:
      `Edits the slides or Sheet tab with this exact tab_id (never a type or a label). ` +
      `To correct a slide, use slide_update with its exact slide_id (only the fields you give change) or slide_delete; never add a second slide to fix one. ` +
      `slides_add_outline appends 1 to ${LIMITS.slidesPerCall} slides at once; slide_add one. ` +
      `On a Sheet: rows_append (up to ${LIMITS.rowsPerCall} rows), row_update (only the cells given; null empties one), row_delete, columns_add. ` +
      `A slide or row is named by its exact id from read_note_tab or an earlier write's slide_ids/row_ids: an index or a title is refused (slide_not_found, row_not_found). ` +
      `New slides and rows are appended; a position cannot be chosen. ${WRITE_RULES}`,
    scopes: WRITE,
    readOnly: false,
    command: "edit_tab",
  },
  {
    name: "add_note_source",
    title: "Cite a source",
    description:
      "Adds an http(s) page to the Note's Sources tab. A page already attached (under any spelling: www., trailing slash, utm_ parameters, fragment, http) is not added again: you get the existing source with already_attached: true. " +
      `For the key, name "this URL in this Note" (e.g. note_id plus the normalized URL), not a random UUID, so every retry of the citation shares it. ${WRITE_RULES}`,
    scopes: WRITE,
    readOnly: false,
    command: "add_source",
  },
  {
    name: "list_note_attachments",
    title: "List sources or files",
    description:
      `Pages through a Note's sources or files (metadata only: never file content or download links). ` +
      `Up to ${LIMITS.pageSize} items per call; pass next_cursor back to get the next page until it is null.`,
    scopes: READ,
    readOnly: true,
    command: "list_attachments",
  },
  {
    name: "list_note_changes",
    title: "List a Note's changes",
    description:
      "Lists the Note's committed changes after since_version, oldest first: each with its version, time, who made it " +
      "(the person, or an agent by its client's name), the operation, the exact IDs it touched (tab, slides, rows, source), " +
      "and the names as they were at that version (tab_label, and tab_label_before for a rename; source_title; file_name; note_title). " +
      "Use it to see whether anyone touched your tab since the version you hold. " +
      `Up to ${LIMITS.changesPageSize} per call (default ${LIMITS.changesPageDefault}); pass next_since_version back as since_version until it is null. ` +
      `The log keeps the latest ${CHANGES_KEPT} changes: oldest_version is the first it still holds.`,
    scopes: READ,
    readOnly: true,
    command: "list_changes",
  },
  {
    name: "revert_note_change",
    title: "Take a change back",
    description:
      "Takes back one change of the Note by its version (from list_note_changes, where revertible says which can be), and only that change: " +
      "a slide's or row's old fields come back, a deleted slide, row or tab comes back with the same ID in the same place, an added one goes. " +
      "The revert is a new change with a new version; taking a revert back redoes the change. " +
      "Refused with revert_conflict when a later change touched what it touched (its changes list them: take those back first, newest first, or make a new change), " +
      "change_not_found for a version the log does not hold, not_revertible for a change that is not content (the Note's creation, members, approval) or made before changes were kept. " +
      WRITE_RULES,
    scopes: WRITE,
    readOnly: false,
    command: "revert_change",
  },
];

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOLS.map((t) => [t.name, t]));
