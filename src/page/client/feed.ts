/**
 * @module
 * One line of the activity feed: who (an agent by its client's registered
 * name, or the person) and what, in words, with the names the log entry kept
 * as they were at its version (a tab's label then, not now) and the IDs it
 * touched. An entry from before the log kept names shows the IDs alone.
 */
import type { ChangeEntry } from "./types.js";

const WORDS: Readonly<Record<string, string>> = {
  create_note: "created the Note",
  rename_note: "renamed the Note",
  delete_note: "deleted the Note",
  create_tab: "created tab",
  add_tab: "added tab",
  rename_tab: "renamed tab",
  move_tab: "moved tab",
  delete_tab: "deleted tab",
  set_slides: "replaced the slides of",
  slide_add: "added a slide to",
  slides_add_outline: "added slides to",
  slide_update: "changed a slide in",
  slide_delete: "deleted a slide from",
  slide_move: "moved a slide in",
  columns_add: "added columns to",
  rows_append: "added rows to",
  row_update: "changed a row in",
  row_delete: "deleted a row from",
  row_move: "moved a row in",
  set_markdown: "edited the Markdown",
  set_approval: "changed connector access",
  add_member: "added member",
  remove_member: "removed member",
  add_source: "added a source",
  add_file: "added a file",
};

/** Operations whose words already name their tab (the Markdown, a source, a file): the line names no tab besides. */
const TAB_IN_WORDS: ReadonlySet<string> = new Set(["set_markdown", "add_source", "add_file"]);

/** Something a line names: by its name as the entry kept it, its ID, or both ("“Q3 launch” (slides-1-x)"). */
export interface Named {
  name?: string;
  id?: string;
}

/**
 * One line of the activity feed, in parts: every name in it (a client's, a user's, a member's, a tab's)
 * is shown isolated (`<bdi>`), so a direction mark inside one cannot reorder the rest of the line.
 */
export interface FeedLine {
  /** The actor: an agent's client name (its ID when it registered none), or the person's user ID. */
  who: string;
  /** An agent's: the user it acts for. */
  forUser?: string;
  /** The operation in words. */
  what: string;
  /** The tab it touched, which the line links to. */
  tabId?: string;
  /** The change deleted that tab: nothing to link to. */
  gone?: boolean;
  /** The tab as the line names it: its label then (a rename: "“before” to “after”") and its ID; absent when `what` names it. */
  tab?: Named;
  /** Whom or what else it touched: the member, the source or the file, the Note's title. */
  subject?: Named;
  /** How many slides or rows, e.g. ": 2 slides"; "" when none. */
  count: string;
}

const quoted = (name: string) => `“${name}”`;

/** "“before” to “after”" when both are known and differ; the one known otherwise. */
function renamed(before: string | undefined, after: string | undefined): string | undefined {
  if (after === undefined) return before === undefined ? undefined : quoted(before);
  return before === undefined || before === after ? quoted(after) : `${quoted(before)} to ${quoted(after)}`;
}

function named(name: string | undefined, id: string | undefined): Named | undefined {
  if (name === undefined && id === undefined) return undefined;
  const out: Named = {};
  if (name !== undefined) out.name = name;
  if (id !== undefined) out.id = id;
  return out;
}

export function describeChange(entry: ChangeEntry): FeedLine {
  const actor = entry.actor;
  const line: FeedLine = { who: actor.kind === "agent" ? (actor.client_name ?? actor.client_id) : actor.user, what: WORDS[entry.operation] ?? entry.operation, count: "" };
  // A revert names the change it took back: "alice took back v7 in “Q3” (slides-1-x): 1 slide".
  if (entry.operation === "revert_change" && entry.reverts !== undefined) line.what = `took back v${entry.reverts}${entry.tab_id === undefined ? "" : " in"}`;
  if (actor.kind === "agent") line.forUser = actor.user;
  if (entry.tab_id !== undefined) {
    line.tabId = entry.tab_id;
    if (entry.operation === "delete_tab") line.gone = true;
    if (!TAB_IN_WORDS.has(entry.operation)) line.tab = named(renamed(entry.tab_label_before, entry.tab_label), entry.tab_id) as Named;
  }
  const subject =
    entry.member !== undefined
      ? named(undefined, entry.member)
      : entry.source_id !== undefined
        ? named(entry.source_title === undefined ? undefined : quoted(entry.source_title), entry.source_id)
        : entry.file_id !== undefined
          ? named(entry.file_name === undefined ? undefined : quoted(entry.file_name), entry.file_id)
          : named(renamed(entry.note_title_before, entry.note_title), undefined);
  if (subject !== undefined) line.subject = subject;
  const items = entry.slide_ids ?? entry.row_ids;
  if (items !== undefined) {
    const count = items.length + (entry.ids_omitted ?? 0);
    const noun = entry.slide_ids !== undefined ? "slide" : "row";
    line.count = `: ${count} ${noun}${count === 1 ? "" : "s"}`;
  }
  return line;
}

/** A named thing as text: "“Q3 launch” (slides-1-x)"; without IDs, its name alone (its ID when it has no name). */
export function namedText(thing: Named, withIds = true): string {
  if (thing.name === undefined) return thing.id ?? "";
  return withIds && thing.id !== undefined ? `${thing.name} (${thing.id})` : thing.name;
}

/**
 * The line as one sentence: "Deck Builder added a slide to “Q3 launch” (slides-1-x): 1 slide".
 * Without IDs, for a screen reader's announcement: "Deck Builder added a slide to “Q3 launch”: 1 slide".
 */
export function lineText(line: FeedLine, withIds = true): string {
  const parts = [line.who, line.what];
  if (line.tab !== undefined) parts.push(namedText(line.tab, withIds));
  if (line.subject !== undefined) parts.push(namedText(line.subject, withIds));
  return parts.join(" ") + line.count;
}

/**
 * The line by its IDs alone, as a conflict has told its changes since issue 13:
 * "Deck Builder changed a slide in slides-2-x: 1 slide" (the tab's ID even where the words name the tab).
 */
export function idText(line: FeedLine): string {
  const parts = [line.who, line.what];
  if (line.tabId !== undefined) parts.push(line.tabId);
  if (line.subject?.id !== undefined) parts.push(line.subject.id);
  return parts.join(" ") + line.count;
}

/** An entry's time as a person reads it: the time alone for today, else the day and the time ("2 Dec, 14:03"), in the browser's language. */
export function whenText(at: string, now: Date = new Date(), locale?: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  const today = date.getFullYear() === now.getFullYear() && date.getMonth() === now.getMonth() && date.getDate() === now.getDate();
  if (today) return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit" }).format(date);
  const options: Intl.DateTimeFormatOptions = { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" };
  if (date.getFullYear() !== now.getFullYear()) options.year = "numeric";
  return new Intl.DateTimeFormat(locale, options).format(date);
}
