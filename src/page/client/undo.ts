/**
 * @module
 * Taking a change back from the activity feed (docs/spec.md §10). Each line
 * of a content change has an "Undo" button ("Redo" on a revert's own line:
 * taking a revert back redoes the change), and "Show what changed", which
 * reads `GET /changes/:version` when first opened and shows each item's
 * before and after as text. Undo is one write (`write()`, with the version
 * the page shows); a refusal is told in words on the line and in the status.
 *
 * Whether a change can be taken back now is the log's `revertible`, which a
 * page of the log carries and the socket's entries do not (docs/live.md):
 * feed-view.ts keeps the flags it read and reads the log's newest page again
 * after each change (docs/decisions.md, "The feed's Undo"). A line the log
 * says cannot be taken back keeps its button, with a hint: pressing it asks
 * the server, whose refusal names the later changes in the way.
 */
import { api, conflictInWords, errorInWords, write, type ApiError, type Conflict } from "./api.js";
import { h, say } from "./dom.js";
import { describeChange, lineText } from "./feed.js";
import { feed, page } from "./state.js";
import type { ChangeEntry } from "./types.js";

/** Operations that are not content (docs/spec.md §10): no Undo. */
const NOT_CONTENT: ReadonlySet<string> = new Set(["create_note", "delete_note", "set_approval", "add_member", "remove_member"]);

/** Whether the line of this entry offers Undo at all: a content change. */
export function undoable(entry: ChangeEntry): boolean {
  return !NOT_CONTENT.has(entry.operation);
}

/** "Redo" for a revert (taking it back redoes the change), "Undo" otherwise, and for a redo's own line (its target a revert). */
export function verbOf(entry: ChangeEntry): "Undo" | "Redo" {
  if (entry.operation !== "revert_change") return "Undo";
  const target = entry.reverts === undefined ? undefined : feed.get(entry.reverts);
  return target?.operation === "revert_change" ? "Undo" : "Redo";
}

/** What the change touched, as the refusal names it: "this slide", "these rows", "this tab". */
function touched(entry: ChangeEntry): string {
  const slides = (entry.slide_ids?.length ?? 0) + (entry.slide_ids === undefined ? 0 : (entry.ids_omitted ?? 0));
  const rows = (entry.row_ids?.length ?? 0) + (entry.row_ids === undefined ? 0 : (entry.ids_omitted ?? 0));
  if (slides > 0) return slides === 1 ? "this slide" : "these slides";
  if (rows > 0) return rows === 1 ? "this row" : "these rows";
  if (entry.operation === "set_markdown") return "the Markdown";
  if (entry.operation === "rename_note") return "the title";
  if (entry.tab_id !== undefined) return "this tab";
  return "what it changed";
}

/** Names joined as a person says them: "alice", "alice and Deck Builder", "a, b and c". */
function joined(names: string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * A refused Undo in words: revert_conflict names who changed what since and which versions to undo first
 * ("alice changed this slide since (v9): undo that first. v9 alice changed a slide in …"); not_revertible and
 * change_not_found say why plainly. Undefined for anything else (errorInWords says it).
 */
export function refusalInWords(entry: ChangeEntry, error: ApiError): string | undefined {
  switch (error.code) {
    case "revert_conflict": {
      const conflict = error as unknown as Conflict;
      const changes = Array.isArray(conflict.changes) ? conflict.changes : [];
      if (changes.length === 0) return `${error.message}`;
      const own = changes.find((change) => change.operation === "revert_change" && change.reverts === entry.version);
      if (own !== undefined && changes.length === 1) return `It was taken back already (v${own.version}): press Redo on v${own.version} to bring it back.`;
      const versions = changes.map((change) => `v${change.version}`).join(", ");
      const who = joined([...new Set(changes.map((change) => describeChange(change).who))]);
      const first = changes.length === 1 ? "undo that first" : "undo those first, newest first";
      return `${who} changed ${touched(entry)} since (${versions}): ${first}. Since then: ${conflictInWords({ ...conflict, changes })}.`;
    }
    case "not_revertible": {
      const reason = typeof error.reason === "string" && error.reason !== "" ? error.reason : "it is not a change of the content";
      return `This change cannot be taken back: ${reason}. Make the change you want as a new one.`;
    }
    case "change_not_found":
      return `The activity log no longer holds v${entry.version} (it keeps the newest 1,000 changes), so it cannot be taken back.`;
    default:
      return undefined;
  }
}

/** One Undo at a time per line: a second press while the first is under way does nothing. */
const pending = new Set<number>();

async function undo(entry: ChangeEntry, verb: string, said: HTMLElement): Promise<void> {
  if (pending.has(entry.version)) return;
  pending.add(entry.version);
  const what = `${verb} v${entry.version}`;
  const tell = (text: string) => {
    said.textContent = text;
    said.hidden = text === "";
  };
  tell("");
  try {
    await write<{ version: number }>(
      what,
      "POST",
      `/changes/${entry.version}/revert`,
      {},
      undefined,
      (conflict) => {
        const text = `${what}: not done. The Note changed while you were looking at it (now version ${page.note?.version ?? conflict.current_version}): ${conflictInWords(conflict)}. Check it and press ${verb} again.`;
        tell(text);
        say(text);
      },
      (error) => {
        const words = refusalInWords(entry, error);
        tell(`${what}: not done. ${words ?? errorInWords(error)}`);
        return words;
      },
    );
  } finally {
    pending.delete(entry.version);
  }
}

/** An item of `GET /changes/:version` (docs/api.md). */
interface ChangedItem {
  item: string;
  id?: string;
  tab_id?: string;
  change: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  full_lengths?: Record<string, number>;
}

const ITEM_WORDS: Readonly<Record<string, string>> = { slide: "Slide", row: "Row", tab: "Tab", columns: "Columns", markdown: "The Markdown", title: "The title", source: "Source", file: "File" };
const FIELD_WORDS: Readonly<Record<string, string>> = { body: "Body", title: "Title", notes: "Speaker notes", label: "Label", text: "Text", cells: "Cells", columns: "Columns", position: "Place", name: "Name", url: "Address" };

/** A field's value as text: strings as they are, cells one per line ("Price: 3"), lists by commas, anything else as JSON. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return "(none)";
  if (typeof value === "string") return value === "" ? "(empty)" : value;
  if (Array.isArray(value)) return value.map((one) => (typeof one === "string" ? one : JSON.stringify(one))).join(", ");
  if (typeof value === "object") return Object.entries(value as Record<string, unknown>).map(([key, one]) => `${key}: ${typeof one === "string" ? one : JSON.stringify(one)}`).join("\n");
  return String(value);
}

/** One side of one field: its text, and how long the whole text is when it was clipped. */
function side(label: string, value: unknown, present: boolean, full: number | undefined): Node[] {
  const text = present ? valueText(value) : "(not there)";
  const dd = h("dd", {}, h("pre", {}, text));
  if (full !== undefined) dd.append(h("span", { class: "clipped" }, `Clipped: the whole text has ${full.toLocaleString()} characters.`));
  return [h("dt", {}, label), dd];
}

function itemView(item: ChangedItem): HTMLElement {
  const head = h("p", { class: "changed-head" }, h("strong", {}, ITEM_WORDS[item.item] ?? item.item));
  if (item.id !== undefined) head.append(" ", h("bdi", {}, item.id));
  head.append(`: ${item.change}`);
  const fields = [...new Set([...Object.keys(item.before ?? {}), ...Object.keys(item.after ?? {})])];
  const list = h("dl", {});
  const lengths = item.full_lengths ?? {};
  for (const field of fields) {
    const name = FIELD_WORDS[field] ?? field;
    const full = (which: string) => lengths[`${which}.${field}`];
    list.append(...side(`${name}, before`, item.before?.[field], item.before !== null, full("before")));
    list.append(...side(`${name}, after`, item.after?.[field], item.after !== null, full("after")));
  }
  if (fields.length === 0) list.append(h("dt", {}, "Before"), h("dd", {}, item.before === null ? "(not there)" : "(no fields)"), h("dt", {}, "After"), h("dd", {}, item.after === null ? "(not there)" : "(no fields)"));
  return h("div", { class: "changed-item" }, head, list);
}

/** Reads what the change did and shows it in `box`; once it has shown it, it stays (a change's before and after do not change). */
async function showChanged(entry: ChangeEntry, box: HTMLElement): Promise<void> {
  if (box.dataset.state === "shown" || box.dataset.state === "reading") return;
  box.dataset.state = "reading";
  box.replaceChildren("Reading what it changed…");
  const answer = await api<{ items: ChangedItem[]; items_omitted?: number }>("GET", `/changes/${entry.version}`);
  if (!answer.ok) {
    box.dataset.state = "failed";
    box.replaceChildren(answer.error.code === "change_not_found" ? "The activity log no longer holds this change." : `Could not read what it changed: ${errorInWords(answer.error)}`);
    return;
  }
  const { items, items_omitted: omitted } = answer.value;
  box.dataset.state = "shown";
  box.replaceChildren(...(items.length === 0 ? ["It kept no record of what it changed."] : items.map(itemView)));
  if (omitted !== undefined && omitted > 0) box.append(h("p", { class: "hint" }, `and ${omitted} more ${omitted === 1 ? "item" : "items"}.`));
}

/** The hint on a line the log says cannot be taken back now. */
const NOT_NOW = "Cannot be taken back as things are now; Undo says why.";

/** Marks a line's controls as the log last said: `revertible` false shows the hint (the button stays, to ask why). */
export function markRevertible(box: HTMLElement, revertible: boolean | undefined): void {
  const state = revertible === undefined ? "unknown" : String(revertible);
  if (box.dataset.revertible === state) return;
  box.dataset.revertible = state;
  const hint = box.querySelector<HTMLElement>(".undo-hint");
  const button = box.querySelector<HTMLElement>("button.undo");
  if (hint === null || button === null) return;
  hint.hidden = revertible !== false;
  // Described by the hint only while it shows.
  if (hint.hidden) button.removeAttribute("aria-describedby");
  else button.setAttribute("aria-describedby", hint.id);
}

/** A content change's controls: Undo (or Redo), "Show what changed", and where a refusal is told; null for any other change. */
export function undoControls(entry: ChangeEntry, revertible: boolean | undefined): HTMLElement | null {
  if (!undoable(entry)) return null;
  const verb = verbOf(entry);
  const sentence = lineText(describeChange(entry), false);
  const button = h("button", { type: "button", class: "undo", "aria-label": `${verb} v${entry.version}: ${sentence}` }, verb);
  const hint = h("span", { class: "undo-hint", id: `undo-hint-${entry.version}` }, NOT_NOW);
  const said = h("p", { class: "undo-said" });
  said.hidden = true;
  const changed = h("div", { class: "changed" });
  const details = h("details", { class: "what-changed" }, h("summary", { "aria-label": `Show what v${entry.version} changed` }, "Show what changed"), changed);
  details.addEventListener("toggle", () => {
    if (details.open) void showChanged(entry, changed);
  });
  button.addEventListener("click", () => void undo(entry, verb, said));
  const box = h("div", { class: "undo-box" }, button, hint, said, details);
  markRevertible(box, revertible);
  return box;
}
