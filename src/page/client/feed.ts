/**
 * @module
 * One line of the activity feed: who (an agent by its client's registered
 * name, or the person) and what, in words, with the IDs it touched.
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

/**
 * One line of the activity feed, in parts: every name in it (a client's, a user's, a member's)
 * is shown isolated (`<bdi>`), so a direction mark inside one cannot reorder the rest of the line.
 */
interface FeedLine {
  /** The actor: an agent's client name (its ID when it registered none), or the person's user ID. */
  who: string;
  /** An agent's: the user it acts for. */
  forUser?: string;
  /** The operation in words. */
  what: string;
  /** The tab it touched: the page names it by its label now. */
  tabId?: string;
  /** Whom or what else it touched: the member, the source or the file. */
  subject?: string;
  /** How many slides or rows, e.g. ": 2 slides"; "" when none. */
  count: string;
}

export function describeChange(entry: ChangeEntry): FeedLine {
  const actor = entry.actor;
  const line: FeedLine = { who: actor.kind === "agent" ? (actor.client_name ?? actor.client_id) : actor.user, what: WORDS[entry.operation] ?? entry.operation, count: "" };
  if (actor.kind === "agent") line.forUser = actor.user;
  if (entry.tab_id !== undefined) line.tabId = entry.tab_id;
  const subject = entry.member ?? entry.source_id ?? entry.file_id;
  if (subject !== undefined) line.subject = subject;
  const items = entry.slide_ids ?? entry.row_ids;
  if (items !== undefined) {
    const count = items.length + (entry.ids_omitted ?? 0);
    const noun = entry.slide_ids !== undefined ? "slide" : "row";
    line.count = `: ${count} ${noun}${count === 1 ? "" : "s"}`;
  }
  return line;
}
