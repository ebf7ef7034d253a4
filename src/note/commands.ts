/**
 * The operations a Note answers, with their inputs and results. Agents'
 * operations are the MCP tools (docs/spec.md §2); the app's are the person's API
 * (docs/spec.md §7). One map types both ends of the Durable Object's RPC.
 */
import type { ChangeEntry } from "./changes.js";
import type { AttachmentKind } from "./cursor.js";
import type { Cells } from "./store.js";
import type { AddableTabType, TabType } from "./tabs/ids.js";
import type { ChangeDetail, RevertedChange } from "./undo.js";
import type { FetchedItem } from "./search/contract.js";
import type { DescribedHits, NoteSearchPage } from "./search/search.js";

/** Who is calling, and through which door. */
export interface Caller {
  user: string;
  /** `connector` is an AI agent through MCP: it also needs the Note approved. */
  channel: "connector" | "app";
  /** A connector's OAuth client, by ID and registered name: who the change log says wrote. */
  client?: { id: string; name: string | null } | undefined;
}

export interface SlideInput {
  title: string;
  body?: string | undefined;
  notes?: string | undefined;
}

interface WriteInput {
  expected_version: number;
  idempotency_key: string;
}

export interface TabSummary {
  id: string;
  type: TabType;
  label: string;
  position: number;
  /** A slides tab's slides. */
  slide_count?: number;
  /** A Sheet's rows and columns. */
  row_count?: number;
  column_count?: number;
}

/** The edits of a tab's content an agent may make; each names its slide or row by exact ID. */
export const AGENT_EDITS = ["slide_add", "slides_add_outline", "slide_update", "slide_delete", "rows_append", "row_update", "row_delete", "columns_add"] as const;
/** The person's: the agent's, and moving a slide or a row, which stays the person's. */
export const PERSON_EDITS = [...AGENT_EDITS, "slide_move", "row_move"] as const;
export type TabEditName = (typeof PERSON_EDITS)[number];

/** The fields of an edit of a tab's content; each operation takes its own (tab-edits.ts). */
export interface TabEditFields {
  tab_id: string;
  title?: string | undefined;
  body?: string | undefined;
  notes?: string | undefined;
  slides?: SlideInput[] | undefined;
  slide_id?: string | undefined;
  rows?: Cells[] | undefined;
  row_id?: string | undefined;
  /** row_update: the cells to set; null empties a cell. */
  cells?: Record<string, string | number | null> | undefined;
  columns?: string[] | undefined;
  /** slide_move, row_move: the slide or row to follow; null moves it first. */
  after_id?: string | null | undefined;
}

interface RowOutput {
  /** The row's ID: fixed for its life, never reused in the Note. */
  id: string;
  index: number;
  cells: Cells;
}

interface SourceItem {
  id: string;
  title: string;
  url: string;
  description: string;
  added_at: string;
}

interface FileItem {
  id: string;
  name: string;
  media_type: string;
  size_bytes: number;
  added_at: string;
}

export interface SlideOutput {
  /** The slide's ID: fixed for its life, never reused in the Note. */
  id: string;
  index: number;
  title: string;
  body: string;
  notes: string;
}

export interface TabList {
  note_id: string;
  title: string;
  version: number;
  tabs: TabSummary[];
}

export type TabContent =
  | { note_id: string; version: number; tab: TabSummary; slides: SlideOutput[]; next_cursor: string | null }
  | { note_id: string; version: number; tab: TabSummary; columns: string[]; rows: RowOutput[]; next_cursor: string | null }
  | { note_id: string; version: number; tab: TabSummary; text: string };

interface WriteOutcomeFields {
  version: number;
  replayed: boolean;
  arguments_differ: boolean;
  /** On a replay only: the Note's version now (idempotency.ts). */
  current_version?: number;
}

export type CreatedTab = WriteOutcomeFields & {
  note_id: string;
  tab_id: string;
  label: string;
  position: number;
} & (
    | {
        tab_type: "slides";
        slide_count: number;
        /** The new slides' IDs, in deck order. */
        slide_ids: string[];
      }
    | {
        tab_type: "sheet";
        columns: string[];
        row_count: number;
        /** The new rows' IDs, in order. */
        row_ids: string[];
      }
  );

export type EditedTab = WriteOutcomeFields & {
  note_id: string;
  tab_id: string;
  /** Absent on a result recorded before the content edits (issue 12) and replayed. */
  operation?: (typeof AGENT_EDITS)[number];
} & (
    | {
        slides_added: number;
        /** The slides this call added, updated or deleted, in deck order. */
        slide_ids: string[];
        slide_count: number;
      }
    | {
        /** The rows this call added, updated or deleted, in order. */
        row_ids: string[];
        row_count: number;
        /** The Sheet's columns after the call. */
        columns: string[];
      }
  );

export interface AddedSource {
  note_id: string;
  source_id: string;
  title: string;
  url: string;
  normalized_url: string;
  already_attached: boolean;
  version: number;
  replayed: boolean;
  arguments_differ: boolean;
  /** On a replay only: the Note's version now (idempotency.ts). */
  current_version?: number;
}

export type AttachmentPage =
  | { note_id: string; kind: "sources"; items: SourceItem[]; next_cursor: string | null }
  | { note_id: string; kind: "files"; items: FileItem[]; next_cursor: string | null };

export interface NoteSummary {
  note_id: string;
  title: string;
  approved: boolean;
  version: number;
}

export interface WholeNote extends NoteSummary {
  members: string[];
  markdown: string;
  /** A deck's slides whole; a Sheet's columns (its rows page through GET /api/v1/notes/{id}/tabs/{tab}). */
  tabs: (TabSummary & { slides?: SlideOutput[]; columns?: string[] })[];
  source_count: number;
  file_count: number;
}

/** A committed change by the person: the Note's new version and what changed. */
export interface Changed {
  note_id: string;
  version: number;
  tab?: TabSummary;
  file_id?: string;
  /** The slides or rows the change added, updated, moved or deleted. */
  slide_ids?: string[];
  row_ids?: string[];
}

/** A page of the change log, oldest first. */
export interface ChangePage {
  note_id: string;
  /** The Note's version now. */
  version: number;
  /** The oldest version the log still holds (null before its first entry): since_version below it means some are gone. */
  oldest_version: number | null;
  changes: ChangeEntry[];
  /** Pass it back as since_version for the next page; null on the last. */
  next_since_version: number | null;
}

interface Commands {
  // The agent's tools.
  list_tabs: { input: Record<string, never>; output: TabList };
  read_tab: { input: { tab_id: string; limit?: number | undefined; cursor?: string | undefined }; output: TabContent };
  create_tab: {
    input: WriteInput & {
      tab_type: AddableTabType;
      label?: string | undefined;
      slides?: SlideInput[] | undefined;
      columns?: string[] | undefined;
      rows?: Cells[] | undefined;
    };
    output: CreatedTab;
  };
  edit_tab: {
    input: WriteInput & TabEditFields & { operation: (typeof AGENT_EDITS)[number] };
    output: EditedTab;
  };
  add_source: {
    input: WriteInput & { title: string; url: string; description?: string | undefined };
    output: AddedSource;
  };
  list_attachments: {
    input: { kind: AttachmentKind; limit?: number | undefined; cursor?: string | undefined };
    output: AttachmentPage;
  };
  list_changes: { input: { since_version: number; limit?: number | undefined }; output: ChangePage };
  revert_change: { input: WriteInput & { version: number }; output: RevertedChange };
  /** This Note's items holding any of the query's words, best first (docs/search.md). */
  search: { input: { query: string; limit?: number | undefined; cursor?: string | undefined }; output: NoteSearchPage };
  /** The items of document keys a directory ranked, described fresh, in the order given; keys no longer held are left out. */
  describe_hits: { input: { keys: number[]; query: string }; output: DescribedHits };
  /** One hit's whole text by its id (SearchHit.id), bounded by FETCH_CHARS. */
  fetch_item: { input: { id: string }; output: FetchedItem };

  // The person's app.
  create_note: { input: { title: string; markdown?: string | undefined }; output: NoteSummary };
  read_note: { input: Record<string, never>; output: WholeNote };
  set_approval: { input: { approved: boolean; expected_version?: number | undefined }; output: Changed };
  add_member: { input: { user: string; expected_version?: number | undefined }; output: Changed };
  remove_member: { input: { user: string; expected_version?: number | undefined }; output: Changed };
  rename_note: { input: { title: string; expected_version?: number | undefined }; output: Changed };
  delete_note: { input: { expected_version?: number | undefined }; output: Changed };
  add_tab: {
    input: { tab_type: AddableTabType; label?: string | undefined; position?: number | undefined; expected_version?: number | undefined };
    output: Changed;
  };
  rename_tab: { input: { tab_id: string; label: string; expected_version?: number | undefined }; output: Changed };
  move_tab: { input: { tab_id: string; position: number; expected_version?: number | undefined }; output: Changed };
  delete_tab: { input: { tab_id: string; expected_version?: number | undefined }; output: Changed };
  set_slides: { input: { tab_id: string; slides: SlideInput[]; expected_version?: number | undefined }; output: Changed };
  /** The person's edit of a tab's content: the agent's operations, and moves. */
  change_tab: { input: TabEditFields & { operation: TabEditName; expected_version?: number | undefined }; output: Changed };
  set_markdown: { input: { text: string; expected_version?: number | undefined }; output: Changed };
  /** The person takes a change back (undo.ts); reads one change's before and after. */
  undo_change: { input: { version: number; expected_version?: number | undefined }; output: Changed };
  read_change: { input: { version: number }; output: ChangeDetail };
  add_file: {
    input: { name: string; media_type: string; size_bytes: number; expected_version?: number | undefined };
    output: Changed;
  };
}

export type CommandName = keyof Commands;
export type Input<K extends CommandName> = Commands[K]["input"];
export type Output<K extends CommandName> = Commands[K]["output"];

/** The agent's writes: the commands that take an idempotency key. */
export const KEYED_COMMANDS = ["create_tab", "edit_tab", "add_source", "revert_change"] as const;
export type KeyedCommand = (typeof KEYED_COMMANDS)[number];
/** What an agent may do through a connector: the MCP tools' operations, nothing of the person's. */
export const CONNECTOR_COMMANDS: ReadonlySet<CommandName> = new Set(["list_tabs", "read_tab", "list_attachments", "list_changes", "search", "describe_hits", "fetch_item", ...KEYED_COMMANDS]);
