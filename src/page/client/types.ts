/**
 * @module
 * What the page reads: the whole Note as `GET /api/v1/notes/:id` answers it,
 * the change log's entries, and the live socket's messages (docs/api.md).
 */

export interface Slide {
  id: string;
  index: number;
  title: string;
  body?: string;
  notes?: string;
}

export interface Tab {
  id: string;
  type: "markdown" | "files" | "sources" | "slides" | "sheet";
  label: string;
  position: number;
  slide_count?: number;
  slides?: Slide[];
  columns?: string[];
  row_count?: number;
  column_count?: number;
}

export interface Note {
  note_id: string;
  title: string;
  approved: boolean;
  version: number;
  members: string[];
  markdown: string;
  tabs: Tab[];
  source_count: number;
  file_count: number;
}

export type Actor = { kind: "person"; user: string } | { kind: "agent"; user: string; client_id: string; client_name: string | null };

export interface ChangeEntry {
  version: number;
  at: string;
  actor: Actor;
  operation: string;
  tab_id?: string;
  slide_ids?: string[];
  row_ids?: string[];
  ids_omitted?: number;
  source_id?: string;
  file_id?: string;
  member?: string;
}

export type LiveMessage =
  | { type: "changes"; version: number; changes: ChangeEntry[] }
  | { type: "snapshot"; version: number; note: Note; changes: ChangeEntry[] }
  | { type: "change"; change: ChangeEntry };
