/**
 * @module
 * A slide's body as a person reads it: a deliberate plain subset, not
 * Markdown. Line breaks are kept (a blank line starts a new paragraph), lines
 * starting with "- " or "* " make a bulleted list, lines starting with "1. "
 * (any number) a numbered one. Everything goes in as text nodes: no HTML
 * from the text ever executes.
 */
import { h } from "./dom.js";

const BULLET = /^\s*[-*] (.*)$/;
const NUMBERED = /^\s*(\d{1,9})\. (.*)$/;

/** The body's blocks: paragraphs (line breaks kept by the style sheet) and lists. */
export function bodyBlocks(text: string): HTMLElement[] {
  const blocks: HTMLElement[] = [];
  let lines: string[] = [];
  let list: HTMLUListElement | HTMLOListElement | null = null;
  const endParagraph = (): void => {
    if (lines.length > 0) blocks.push(h("p", { dir: "auto" }, lines.join("\n")));
    lines = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    const bullet = BULLET.exec(line);
    const numbered = bullet === null ? NUMBERED.exec(line) : null;
    if (bullet !== null) {
      endParagraph();
      if (!(list instanceof HTMLUListElement)) blocks.push((list = h("ul")));
      list.append(h("li", { dir: "auto" }, bullet[1] ?? ""));
    } else if (numbered !== null) {
      endParagraph();
      if (!(list instanceof HTMLOListElement)) {
        list = h("ol");
        // The list starts where the person's numbering starts ("3. " after a paragraph).
        if (numbered[1] !== "1") list.setAttribute("start", String(Number(numbered[1])));
        blocks.push(list);
      }
      list.append(h("li", { dir: "auto" }, numbered[2] ?? ""));
    } else if (line.trim() === "") {
      endParagraph();
      list = null;
    } else {
      list = null;
      lines.push(line);
    }
  }
  endParagraph();
  return blocks;
}
