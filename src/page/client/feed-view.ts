/**
 * @module
 * The activity feed on the page: the log's entries by version, newest first,
 * one line each (feed.ts words them), at most FEED_SHOWN of them. An entry
 * that arrives while the page is open is highlighted for a few seconds and
 * announced in a polite live region; each line that names a tab links to the
 * page opened on it. Each content change's line can be taken back (undo.ts):
 * the log's `revertible` flags are kept here, read with the first page of the
 * log and again, the newest page only, after each change the page is told of.
 */
import { api } from "./api.js";
import { $, h, say } from "./dom.js";
import { describeChange, lineText, namedText, whenText, type FeedLine, type Named } from "./feed.js";
import { feed, noteId, page } from "./state.js";
import type { ChangeEntry } from "./types.js";
import { markRevertible, undoControls } from "./undo.js";

/** How many of the newest entries a read of the log asks for (the first read, and each re-read of the flags). */
const LOG_PAGE = 50;

/** The log's newest page: its entries and the Note's version it was read at; null when it could not be read (said unless `quiet`). */
async function readLog(version: number, quiet = false): Promise<{ version: number; changes: ChangeEntry[] } | null> {
  const answer = await api<{ version: number; changes: ChangeEntry[] }>("GET", `/changes?since_version=${Math.max(0, version - LOG_PAGE)}&limit=${LOG_PAGE}`);
  if (!answer.ok) {
    if (answer.status !== 401 && !quiet) say(`Could not read the activity: ${answer.error.message}`);
    return null;
  }
  for (const entry of answer.value.changes) if (entry.revertible !== undefined) revertible.set(entry.version, entry.revertible);
  flagsAt = Math.max(flagsAt, answer.value.version);
  return answer.value;
}

/** The last 50 entries of the change log, for the feed. */
export async function loadFeed(version: number): Promise<void> {
  const log = await readLog(version);
  if (log === null) return;
  for (const entry of log.changes) feed.set(entry.version, entry);
  renderFeed();
}

/**
 * Whether each entry can be taken back now, by version, as the log last said (the socket's entries do not say:
 * docs/live.md). A change may turn an earlier entry's flag false (it touched the same item) or true (it took
 * back the change in the way), so after each change the newest page of the log is read again for its flags.
 */
const revertible = new Map<number, boolean>();
/** The Note's version the flags were last read at; 0 before the first read. */
let flagsAt = 0;
let flagsTimer: ReturnType<typeof setTimeout> | undefined;
let flagsReading = false;

/** Reads the flags again soon, once for a burst of changes, one read at a time. */
function refreshFlagsSoon(): void {
  if (flagsTimer !== undefined || flagsReading || flagsAt === 0 || page.stopped) return;
  flagsTimer = setTimeout(() => {
    flagsTimer = undefined;
    flagsReading = true;
    // In the background: a failed read is not told (the flags stay as they were; Undo asks the server anyway).
    void readLog(feedShown, true)
      .then((log) => {
        flagsReading = false;
        // Not read: tried again at the next change, not in a loop.
        if (log === null) return;
        const oldest = Math.min(...feed.keys());
        for (const version of revertible.keys()) if (version < oldest) revertible.delete(version);
        markLines();
        // Newer changes came while it read: their flags too.
        if (feedShown > flagsAt) refreshFlagsSoon();
      })
      .catch(() => {
        flagsReading = false;
      });
  }, 300);
}

/** Marks every line's Undo as the flags say. */
function markLines(): void {
  for (const box of $("feed").querySelectorAll<HTMLElement>(".undo-box")) {
    const version = Number(box.closest("li")?.getAttribute("data-version"));
    markRevertible(box, flagOf(feed.get(version), version));
  }
}

function flagOf(entry: ChangeEntry | undefined, version: number): boolean | undefined {
  return revertible.get(version) ?? entry?.revertible;
}

/** The newest version the feed shows; 0 before it first drew. */
let feedShown = 0;
/** At most this many entries stay on the page (the log keeps 1,000). */
const FEED_SHOWN = 500;
/** How long a new entry stays highlighted. */
export const FRESH_MS = 4000;

/** The page opened on a tab: `/notes/<note_id>?tab=<tab_id>`. */
export function tabHref(tabId: string): string {
  return `/notes/${encodeURIComponent(noteId)}?tab=${encodeURIComponent(tabId)}`;
}

function isolated(thing: Named, attributes: Record<string, string> = {}): HTMLElement {
  return h("bdi", attributes, namedText(thing));
}

/** A link to the page opened on the tab, around `content`. */
function linked(tabId: string, content: Node | string): HTMLAnchorElement {
  return h("a", { href: tabHref(tabId), "data-tab-id": tabId }, content);
}

/** The line's words: the tab's name links to its tab; when the words name the tab themselves, the subject (or the words) link instead. */
function words(line: FeedLine): (Node | string)[] {
  const parts: (Node | string)[] = [];
  const tabId = line.tabId;
  const tab = line.tab === undefined ? undefined : isolated(line.tab, { class: "tab", "data-tab-id": line.tab.id ?? "" });
  const subject = line.subject === undefined ? undefined : isolated(line.subject, { class: "subject" });
  // A deleted tab has no page to open on.
  const linkOn = tabId === undefined || line.gone === true ? "none" : tab !== undefined ? "tab" : subject !== undefined ? "subject" : "what";
  parts.push(tabId !== undefined && linkOn === "what" ? linked(tabId, line.what) : line.what);
  if (tab !== undefined) parts.push(" ", tabId !== undefined && linkOn === "tab" ? linked(tabId, tab) : tab);
  if (subject !== undefined) parts.push(" ", tabId !== undefined && linkOn === "subject" ? linked(tabId, subject) : subject);
  return parts;
}

function item(entry: ChangeEntry, now: Date): HTMLLIElement {
  const line = describeChange(entry);
  return h(
    "li",
    { "data-version": String(entry.version), "data-actor": entry.actor.kind, "data-operation": entry.operation },
    h("span", { class: "version" }, `v${entry.version}`),
    " ",
    h("time", { datetime: entry.at, title: new Date(entry.at).toLocaleString() }, whenText(entry.at, now)),
    " ",
    h("span", { class: `actor ${entry.actor.kind}` }, h("bdi", {}, line.who), ...(line.forUser === undefined ? [] : [" (for ", h("bdi", {}, line.forUser), ")"])),
    " ",
    h("span", { class: "badge" }, entry.actor.kind === "agent" ? "agent" : "person"),
    " ",
    ...words(line),
    line.count,
    ...[undoControls(entry, flagOf(entry, entry.version))].filter((box) => box !== null),
  );
}

/** Highlights new lines for FRESH_MS (the style sheet keeps it still under prefers-reduced-motion). */
function highlight(items: HTMLElement[]): void {
  for (const element of items) element.classList.add("fresh");
  setTimeout(() => {
    for (const element of items) element.classList.remove("fresh");
  }, FRESH_MS);
}

/** Tells a screen reader what just happened: the newest entry in words, and how many more came with it. */
function announce(entries: ChangeEntry[]): void {
  const newest = entries.at(-1);
  if (newest === undefined) return;
  const text = lineText(describeChange(newest), false);
  const more = entries.length - 1;
  $("feed-news").textContent = more === 0 ? `${text}.` : `${text}, and ${more} more ${more === 1 ? "change" : "changes"}.`;
}

/**
 * Draws the feed, newest first. Entries newer than the newest shown go on top, highlighted and announced;
 * anything else (the first read, a snapshot, a page of older ones) redraws, quietly.
 */
export function renderFeed(): void {
  const list = $("feed");
  const now = new Date();
  const versions = [...feed.keys()].sort((a, b) => a - b);
  const fresh = versions.filter((version) => version > feedShown);
  const kept = Math.min(versions.length - fresh.length, FEED_SHOWN);
  if (feedShown > 0 && list.childElementCount === kept) {
    if (fresh.length > 0) {
      const items = fresh.map((version) => item(feed.get(version) as ChangeEntry, now)).reverse();
      list.prepend(...items);
      highlight(items);
      announce(fresh.map((version) => feed.get(version) as ChangeEntry));
    }
  } else {
    list.replaceChildren(...versions.slice(-FEED_SHOWN).reverse().map((version) => item(feed.get(version) as ChangeEntry, now)));
  }
  while (list.childElementCount > FEED_SHOWN) list.lastElementChild?.remove();
  feedShown = versions.at(-1) ?? 0;
  if (feedShown > flagsAt) refreshFlagsSoon();
}
