/**
 * What a member's directory of Notes (the `list_notes` answer) learns from a
 * Note. The entries are queued in the operation's own transaction (the
 * store's outbox) and delivered after it commits, so a rolled-back change
 * never reaches a directory and a committed one is never lost.
 */
import type { DirectoryEntry, NoteMeta, NoteStore } from "./store.js";

export type { DirectoryEntry };

/** Queues the Note's entry for every member, at the version `meta` carries. */
export function tellMembers(store: NoteStore, meta: NoteMeta): void {
  const entry: DirectoryEntry = { note_id: meta.note_id, title: meta.title, approved: meta.approved, version: meta.version };
  for (const user of store.members()) store.queueDirectoryEntry(user, entry);
}
