/**
 * Delivers a Note's queued directory entries (src/note/directory.ts) to its
 * members' directory objects, after the operation that queued them has
 * committed: an RPC is awaited I/O and never runs inside a transaction. An
 * entry is dropped only once delivered; what fails stays for the next call
 * or the alarm.
 *
 * Each user's entries arrive in the order they were queued: an entry carries
 * only what changed since the previous one (the Note's search documents), so
 * a later entry delivered before an earlier one would leave that user's copy
 * wrong for good. A failed delivery to a user holds their later entries until
 * the retry; other users' deliveries go on.
 */
import type { Env } from "../env.js";
import type { NoteStore, OwedEntry } from "../note/index.js";

/** A call to a directory carries a user's entries up to about this much search text (a new member's whole copy comes in 200 KB entries). */
const BATCH_CHARS = 1_000_000;

/**
 * Delivers what the outbox holds: each user's entries in order, as few calls
 * as their size allows, the users side by side. Returns how many entries are
 * still owed.
 */
export async function deliverDirectoryEntries(store: NoteStore, directories: Env["DIRECTORY"]): Promise<number> {
  const byUser = new Map<string, OwedEntry[]>();
  for (const owed of store.owedDirectoryEntries()) {
    const list = byUser.get(owed.user);
    if (list === undefined) byUser.set(owed.user, [owed]);
    else list.push(owed);
  }
  const owed = await Promise.all([...byUser].map(([user, entries]) => deliverTo(store, directories, user, entries)));
  return owed.reduce((a, b) => a + b, 0);
}

/** One user's entries, in order, in batches; a failed batch holds it and every later one. Returns how many are still owed. */
async function deliverTo(store: NoteStore, directories: Env["DIRECTORY"], user: string, entries: OwedEntry[]): Promise<number> {
  const directory = directories.get(directories.idFromName(user));
  let at = 0;
  while (at < entries.length) {
    const batch: OwedEntry[] = [];
    let chars = 0;
    for (; at < entries.length; at++) {
      const next = entries[at] as OwedEntry;
      const size = (next.entry.index?.put ?? []).reduce((sum, [, text]) => sum + text.length, 0);
      if (batch.length > 0 && chars + size > BATCH_CHARS) break;
      batch.push(next);
      chars += size;
    }
    try {
      await directory.receiveAll(batch.map((owed) => owed.entry));
      for (const owed of batch) store.directoryEntryDelivered(owed.seq);
    } catch (error) {
      console.error(`directory update for ${user} failed; the alarm retries it and holds their later entries until then`, error);
      return entries.length - (at - batch.length);
    }
  }
  return 0;
}
