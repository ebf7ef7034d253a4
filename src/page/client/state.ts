/**
 * @module
 * What the page knows, shared by its parts: the Note as last read, the
 * selected tab, the feed by version. app.ts owns the reading and the socket;
 * a panel that wrote asks for a re-read through `page.reread`.
 */
import type { ChangeEntry, Note, Tab } from "./types.js";

export const noteId = decodeURIComponent(location.pathname.split("/")[2] ?? "");
export const noteBase = `/api/v1/notes/${encodeURIComponent(noteId)}`;

export const page = {
  /** The Note as last read; null until the first read answers. */
  note: null as Note | null,
  /** The version of the last change applied from the log (contract: apply only seen + 1). */
  seen: 0,
  /** The selected tab's ID. */
  selected: null as string | null,
  /** Set when the page has left for sign-in or the Note is gone: nothing more to do. */
  stopped: false,
  /** The selected tab's content (a Sheet's rows, the Files, the Sources) must be read again. */
  contentStale: true,
  /** Where the selected tab's next page starts; null when there is none. */
  nextCursor: null as string | null,
  /** Re-reads the Note (set by app.ts); a burst of calls makes one more read, not one each. */
  reread: async (): Promise<void> => {},
  /** Leaves the page's live state with a last word: the socket closes and nothing more is done (set by app.ts). */
  stop: (_message: string): void => {},
};

/** The feed, by version: a change told twice (a page of the log, then the socket) is shown once. */
export const feed = new Map<number, ChangeEntry>();

export function selectedTab(): Tab | undefined {
  return page.note?.tabs.find((tab) => tab.id === page.selected);
}
