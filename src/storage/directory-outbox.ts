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
import type { NoteStore } from "../note/index.js";

/** Delivers what the outbox holds; returns how many entries are still owed. */
export async function deliverDirectoryEntries(store: NoteStore, directories: Env["DIRECTORY"]): Promise<number> {
  let owed = 0;
  const held = new Set<string>();
  for (const { seq, user, entry } of store.owedDirectoryEntries()) {
    if (held.has(user)) {
      owed += 1;
      continue;
    }
    try {
      await directories.get(directories.idFromName(user)).receive(entry);
      store.directoryEntryDelivered(seq);
    } catch (error) {
      owed += 1;
      held.add(user);
      console.error(`directory update for ${user} failed; the alarm retries it and holds their later entries until then`, error);
    }
  }
  return owed;
}
