/** What every rule of a Note works with: its ID, its store, its clock, and what the simulations may switch off. */
import type { NoteStore } from "./store.js";

export interface NoteContext {
  readonly id: string;
  readonly store: NoteStore;
  /** Milliseconds since the epoch; tab IDs and timestamps read it. */
  readonly now: () => number;
  readonly counterfactual: Counterfactual;
}

/**
 * What production must never do, for the simulations (npm run sim) to show
 * what the three promises prevent. The Durable Object never sets it.
 */
export interface Counterfactual {
  /** Check `expected_version` before the idempotency key (this server checks the key first). */
  versionBeforeKey?: boolean;
  /** Store every citation, even of a page already attached under another spelling (the in-memory store only). */
  noUrlDedupe?: boolean;
}
