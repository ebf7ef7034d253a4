/**
 * What a member's directory of Notes (the `list_notes` answer) learns from a
 * Note. The entries are queued in the operation's own transaction (the
 * store's outbox) and delivered after it commits, so a rolled-back change
 * never reaches a directory and a committed one is never lost.
 */
import type { DirectoryEntry, NoteMeta, NoteStore } from "./store.js";

export type { DirectoryEntry };

/**
 * Queues the Note's entry for every member, at the version `meta` carries. A
 * deleted Note queues its removal instead, after dropping every entry still
 * owed: an older entry delivered after the removal would list the Note again.
 */
export function tellMembers(store: NoteStore, meta: NoteMeta): void {
  if (meta.deleted) store.dropDirectoryEntries();
  const entry: DirectoryEntry = { note_id: meta.note_id, title: meta.title, approved: meta.approved, version: meta.version };
  if (meta.deleted) entry.removed = true;
  for (const user of store.members()) store.queueDirectoryEntry(user, entry);
}

/**
 * A title as a title filter compares it: NFKC (full-width letters, ligatures
 * and compatibility forms as their plain letters), then upper- and lower-cased
 * so that full case mappings meet ("STRASSE" finds "Straße", "Σ" finds "ς").
 * The directory stores each title folded; a fragment is folded the same way.
 */
export function foldTitle(text: string): string {
  return text.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}
