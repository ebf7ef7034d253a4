/**
 * @module
 * The Markdown tab's panel: a text area the person edits and saves whole
 * (`PUT /markdown`). What they typed is never overwritten by a re-read.
 * Below it, the saved text as it reads (markdown-view.ts), drawn again
 * whenever a read brings other text.
 */
import { write } from "./api.js";
import { $, say } from "./dom.js";
import { describeChange, lineText } from "./feed.js";
import { renderMarkdown } from "./markdown-view.js";
import { feed, page } from "./state.js";

/** The text the area was last filled with (or saved): the person's typing is what differs from it. */
let markdownBase: string | null = null;

/** The saved text a conflict was told against: a Save again, with that text still saved, saves the person's over it. */
let conflictTold: string | null = null;

/** The text the rendered view shows: it is drawn again only when the saved text changes. */
let rendered: string | null = null;

/** Shows the Note's Markdown, unless the person is editing it, and the saved text as it reads. */
export function syncMarkdown(text: string): void {
  if (text !== rendered) {
    $("markdown-view").replaceChildren(...renderMarkdown(text));
    rendered = text;
  }
  const area = $<HTMLTextAreaElement>("markdown-text");
  if (markdownBase === null || area.value === markdownBase) {
    area.value = text;
    markdownBase = text;
  } else if (text !== markdownBase) {
    say("The Markdown was changed by someone else while you were editing. Your edits are kept here: save yours over it (Save Markdown, then again), or Discard my edits.");
  }
}

/** Whether the Markdown area holds edits not saved. */
export function markdownUnsaved(): boolean {
  return markdownBase !== null && $<HTMLTextAreaElement>("markdown-text").value !== markdownBase;
}

export function bindMarkdown(): void {
  $<HTMLFormElement>("markdown-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const note = page.note;
    if (note === null) return;
    if (markdownBase !== null && note.markdown !== markdownBase && conflictTold !== note.markdown) {
      // Told once, naming the change; the same Save again (nothing newer saved meanwhile) saves the person's over it.
      conflictTold = note.markdown;
      const change = [...feed.values()].reverse().find((entry) => entry.operation === "set_markdown");
      say(
        `Not saved: the Markdown was changed by someone else while you were editing${change === undefined ? "" : ` (v${change.version} ${lineText(describeChange(change))})`}. Your text is kept: Save Markdown again to save yours over it, or Discard my edits to see theirs.`,
      );
      return;
    }
    conflictTold = null;
    const text = $<HTMLTextAreaElement>("markdown-text").value;
    // What was saved is the new base before the re-read shows it: the re-read must not take the person's own save for someone else's.
    void write("Save Markdown", "PUT", "/markdown", { text }, () => {
      markdownBase = text;
    });
  });
  $("markdown-reload").addEventListener("click", () => {
    markdownBase = null;
    if (page.note !== null) syncMarkdown(page.note.markdown);
    say("Your Markdown edits were discarded.");
  });
}
