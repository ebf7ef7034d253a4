/**
 * Delivers a Note's queued directory entries (src/note/directory.ts) to its
 * members' directory objects, after the operation that queued them has
 * committed: an RPC is awaited I/O and never runs inside a transaction. An
 * entry is dropped only once delivered; what fails stays for the next call
 * or the alarm.
 */
import type { Env } from "../env.js";
import type { NoteStore } from "../note/index.js";

/** Delivers what the outbox holds; returns how many entries are still owed. */
export async function deliverDirectoryEntries(store: NoteStore, directories: Env["DIRECTORY"]): Promise<number> {
  let owed = 0;
  for (const { seq, user, entry } of store.owedDirectoryEntries()) {
    try {
      await directories.get(directories.idFromName(user)).receive(entry);
      store.directoryEntryDelivered(seq);
    } catch (error) {
      owed += 1;
      console.error(`directory update for ${user} failed; the alarm retries it`, error);
    }
  }
  return owed;
}
