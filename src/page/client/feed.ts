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
  /** The operation in words, then what it touched. */
  what: string;
}

/** `labelOf` gives a tab's current label, when the tab is still there. */
export function describeChange(entry: ChangeEntry, labelOf: (tabId: string) => string | undefined): FeedLine {
  const actor = entry.actor;
  const who = actor.kind === "agent" ? `${actor.client_name ?? actor.client_id} (for ${actor.user})` : actor.user;
  const parts = [WORDS[entry.operation] ?? entry.operation];
  if (entry.tab_id !== undefined) {
    const label = labelOf(entry.tab_id);
    parts.push(label === undefined ? entry.tab_id : `“${label}” (${entry.tab_id})`);
  }
  if (entry.member !== undefined) parts.push(entry.member);
  const items = entry.slide_ids ?? entry.row_ids;
  if (items !== undefined) {
    const count = items.length + (entry.ids_omitted ?? 0);
    const noun = entry.slide_ids !== undefined ? "slide" : "row";
    parts.push(`: ${count} ${noun}${count === 1 ? "" : "s"}`);
  }
  if (entry.source_id !== undefined) parts.push(entry.source_id);
  if (entry.file_id !== undefined) parts.push(entry.file_id);
  return { who, what: parts.join(" ").replace(" :", ":") };
}
