/** What every rule of a Note works with: its ID, its store and its clock. */
import type { NoteStore } from "./store.js";

export interface NoteContext {
  readonly id: string;
  readonly store: NoteStore;
  /** Milliseconds since the epoch; tab IDs and timestamps read it. */
  readonly now: () => number;
}
