/**
 * @module
 * The Markdown tab as a person reads it, built as DOM nodes with `h()` from
 * the parsed subset (markdown-subset.ts, docs/markdown-view.md): text nodes and
 * the subset's elements only, never parsed HTML, and links only to http, https
 * and mailto URLs. Headings start at h3 (the page has h1 and h2).
 */
import { h } from "./dom.js";
import { parseMarkdown, type Block, type Inline } from "./markdown-subset.js";

/** The text as DOM nodes. */
export function renderMarkdown(text: string): Node[] {
  return parseMarkdown(text).map(blockNode);
}

function blockNode(block: Block): Node {
  switch (block.type) {
    case "heading":
      return h(`h${Math.min(block.level + 2, 6)}` as "h3", {}, ...block.children.map(inlineNode));
    case "paragraph":
      return h("p", {}, ...block.children.map(inlineNode));
    case "code":
      return h("pre", {}, h("code", {}, block.text));
    case "quote":
      return h("blockquote", {}, ...block.children.map(blockNode));
    case "list": {
      const items = block.items.map((item) => {
        // An item of one paragraph shows its text alone (a tight list).
        const only = item.length === 1 && item[0]?.type === "paragraph" ? item[0].children.map(inlineNode) : item.map(blockNode);
        return h("li", {}, ...only);
      });
      if (!block.ordered) return h("ul", {}, ...items);
      return h("ol", block.start === 1 ? {} : { start: String(block.start) }, ...items);
    }
  }
}

function inlineNode(inline: Inline): Node | string {
  switch (inline.type) {
    case "text":
      return inline.text;
    case "code":
      return h("code", {}, inline.text);
    case "em":
      return h("em", {}, ...inline.children.map(inlineNode));
    case "strong":
      return h("strong", {}, ...inline.children.map(inlineNode));
    case "link":
      return h("a", { href: inline.href, rel: "noopener noreferrer" }, ...inline.children.map(inlineNode));
    case "break":
      return h("br");
  }
}
