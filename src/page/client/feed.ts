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

export interface FeedLine {
  /** The actor: an agent's client name (its ID when it registered none) and the user it acts for, or the person's user ID. */
  who: string;
  /** The operation in words. */
  what: string;
  /** The tab it touched: the page names it by its label now. */
  tabId?: string;
  /** The rest of what it touched: the member, the number of slides or rows, the source or file. */
  rest: string;
}

export function describeChange(entry: ChangeEntry): FeedLine {
  const actor = entry.actor;
  const who = actor.kind === "agent" ? `${actor.client_name ?? actor.client_id} (for ${actor.user})` : actor.user;
  const rest: string[] = [];
  if (entry.member !== undefined) rest.push(` ${entry.member}`);
  const items = entry.slide_ids ?? entry.row_ids;
  if (items !== undefined) {
    const count = items.length + (entry.ids_omitted ?? 0);
    const noun = entry.slide_ids !== undefined ? "slide" : "row";
    rest.push(`: ${count} ${noun}${count === 1 ? "" : "s"}`);
  }
  if (entry.source_id !== undefined) rest.push(` ${entry.source_id}`);
  if (entry.file_id !== undefined) rest.push(` ${entry.file_id}`);
  const line: FeedLine = { who, what: WORDS[entry.operation] ?? entry.operation, rest: rest.join("") };
  if (entry.tab_id !== undefined) line.tabId = entry.tab_id;
  return line;
}
