/**
 * @module
 * The Markdown tab as a person reads it, parsed: a deliberate plain subset of
 * Markdown (docs/markdown-view.md) as a small tree of blocks and inlines, pure
 * (no DOM: test/unit/markdown-subset.test.ts), which markdown-view.ts builds
 * as DOM nodes. No HTML in the text is ever parsed: `<img onerror=…>` is text.
 * Links go only to http, https and mailto URLs; any other link stays the text
 * it was written as.
 *
 * The subset: ATX headings (`#` to `######`), paragraphs (a line break is a
 * space; two trailing spaces or a backslash make a hard break), `*em*`
 * `_em_`, `**strong**` `__strong__`, `` `code` ``, fenced code blocks (```
 * or ~~~), bulleted (`-` `*` `+`) and numbered (`1.` `1)`) lists, nested by
 * indentation, block quotes (`>`), links `[text](url)`, and backslash escapes.
 * Everything else (tables, images, raw HTML, setext headings, indented code,
 * reference links, rules) shows as its text.
 */
export type Inline =
  | { type: "text"; text: string }
  | { type: "em" | "strong"; children: Inline[] }
  | { type: "code"; text: string }
  | { type: "link"; href: string; children: Inline[] }
  | { type: "break" };

export type Block =
  | { type: "heading"; level: number; children: Inline[] }
  | { type: "paragraph"; children: Inline[] }
  | { type: "code"; text: string }
  | { type: "list"; ordered: boolean; start: number; items: Block[][] }
  | { type: "quote"; children: Block[] };

/** Lists and quotes nest this deep at most; deeper markers read as text. */
const MAX_DEPTH = 12;
/** Emphasis and links nest this deep at most. */
const MAX_INLINE_DEPTH = 12;

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
const BLANK = /^[ \t]*$/;

/** The text's blocks. */
export function parseMarkdown(text: string): Block[] {
  return parseBlocks(text.replace(/\r\n?/g, "\n").split("\n"), 0);
}

function startsBlock(line: string, depth: number): boolean {
  return FENCE.test(line) || HEADING.test(line) || (depth < MAX_DEPTH && (QUOTE.test(line) || listItem(line) !== null));
}

interface ListItem {
  ordered: boolean;
  /** The bullet character, or the numbered marker's delimiter ("." or ")"). */
  marker: string;
  number: number;
  /** Where the item's content starts: lines indented this far continue it. */
  indent: number;
  first: string;
}

function listItem(line: string): ListItem | null {
  const match = LIST_ITEM.exec(line.replace(/\t/g, "    "));
  if (match === null) return null;
  const [, lead = "", marker = "", gap, rest = ""] = match;
  // "-" alone on a line is an empty item; "-x" or "1.5" is text.
  if (gap === undefined && rest !== "") return null;
  const ordered = /\d/.test(marker);
  // A gap of five or more spaces is content that starts with spaces: the item's text starts after one.
  const spaces = gap === undefined ? 1 : gap.length > 4 ? 1 : gap.length;
  return {
    ordered,
    marker: ordered ? marker.slice(-1) : marker,
    number: ordered ? Number.parseInt(marker, 10) : 1,
    indent: lead.length + marker.length + spaces,
    first: gap !== undefined && gap.length > 4 ? `${gap.slice(1)}${rest}` : rest,
  };
}

function parseBlocks(lines: string[], depth: number): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (BLANK.test(line)) {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    // A backtick fence's info string has no backtick.
    if (fence !== null && !(fence[1]?.startsWith("`") && fence[2]?.includes("`"))) {
      const open = fence[1] as string;
      const body: string[] = [];
      i += 1;
      while (i < lines.length) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[i] as string);
        if (close !== null && close[1]?.[0] === open[0] && (close[1]?.length ?? 0) >= open.length) {
          i += 1;
          break;
        }
        body.push(lines[i] as string);
        i += 1;
      }
      blocks.push({ type: "code", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      const content = withoutClosingHashes(trimEnd(heading[2] ?? ""));
      blocks.push({ type: "heading", level: (heading[1] as string).length, children: parseInline(content) });
      i += 1;
      continue;
    }
    if (depth < MAX_DEPTH && QUOTE.test(line)) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i] as string)) {
        inner.push(QUOTE.exec(lines[i] as string)?.[1] ?? "");
        i += 1;
      }
      blocks.push({ type: "quote", children: parseBlocks(inner, depth + 1) });
      continue;
    }
    const first = depth < MAX_DEPTH ? listItem(line) : null;
    if (first !== null) {
      const items: Block[][] = [];
      let item: ListItem | null = first;
      while (item !== null) {
        const content = [item.first];
        i += 1;
        while (i < lines.length) {
          const next = lines[i] as string;
          const expanded = next.replace(/\t/g, "    ");
          if (BLANK.test(next)) {
            // Blank lines stay in the item only when the item goes on after them.
            let after = i + 1;
            while (after < lines.length && BLANK.test(lines[after] as string)) after += 1;
            const resumes = after < lines.length && /^ */.exec((lines[after] as string).replace(/\t/g, "    "))![0].length >= item.indent;
            if (!resumes) break;
            for (; i < after; i += 1) content.push("");
            continue;
          }
          if (/^ */.exec(expanded)![0].length >= item.indent) {
            content.push(expanded.slice(item.indent));
            i += 1;
            continue;
          }
          // A line that is not a new block continues the item's last paragraph (a lazy line).
          if (!BLANK.test(content[content.length - 1] as string) && !startsBlock(next, depth)) {
            content.push(next);
            i += 1;
            continue;
          }
          break;
        }
        items.push(parseBlocks(content, depth + 1));
        const following: ListItem | null = i < lines.length ? listItem(lines[i] as string) : null;
        item = following !== null && following.ordered === first.ordered && following.marker === first.marker ? following : null;
      }
      blocks.push({ type: "list", ordered: first.ordered, start: first.number, items });
      continue;
    }
    const paragraph: string[] = [line];
    i += 1;
    while (i < lines.length && !BLANK.test(lines[i] as string) && !startsBlock(lines[i] as string, depth)) {
      paragraph.push(lines[i] as string);
      i += 1;
    }
    blocks.push({ type: "paragraph", children: parseInline(trimEnd(paragraph.map((l) => l.replace(/^[ \t]+/, "")).join("\n"))) });
  }
  return blocks;
}

/**
 * The text without its trailing spaces and tabs. A loop, not /[ \t]+$/: that regex
 * tries every space of an inner run and costs the square of the run's length.
 */
function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t")) end -= 1;
  return text.slice(0, end);
}

/** A heading's text without its closing sequence of `#` (one alone, or after a space). */
function withoutClosingHashes(content: string): string {
  let end = content.length;
  while (end > 0 && content[end - 1] === "#") end -= 1;
  if (end === 0) return "";
  return end < content.length && (content[end - 1] === " " || content[end - 1] === "\t") ? trimEnd(content.slice(0, end)) : content;
}

const PUNCTUATION = /[!-/:-@[-`{-~]/;

/** What may follow `[text](`: a URL without spaces (parentheses balanced) or in `<…>`, and an optional title. */
const LINK_TAIL = /^\(\s*(?:<([^<>\n]*)>|((?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*))(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)/;

/** A link's target when it is one the page may follow (http, https, mailto), else null. */
export function safeHref(raw: string): string | null {
  const target = raw.replace(/\\([!-/:-@[-`{-~])/g, "$1");
  if (!/^(?:https?:\/\/|mailto:)/i.test(target)) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  if (url.protocol === "mailto:") return url.href;
  if ((url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "") return url.href;
  return null;
}

/** The inline content of a heading or a paragraph. */
export function parseInline(text: string): Inline[] {
  return new InlineParser(text).parse(0, text.length, 0);
}

/**
 * Inline Markdown over one block's text. Each search for a closing delimiter
 * remembers where it failed, so text full of unclosed `*`, `` ` `` or `[` costs
 * one scan, not one per opener.
 */
class InlineParser {
  /** For each delimiter: from this index on, no closing one was found. */
  readonly #noCloserFrom = new Map<string, number>();
  /** Each `[`'s matching `]` (brackets escaped with `\` left out). */
  readonly #bracket = new Map<number, number>();

  constructor(readonly text: string) {
    const open: number[] = [];
    for (let i = 0; i < text.length; i += 1) {
      const c = text[i];
      if (c === "\\") i += 1;
      else if (c === "[") open.push(i);
      else if (c === "]" && open.length > 0) this.#bracket.set(open.pop() as number, i);
    }
  }

  parse(from: number, to: number, depth: number): Inline[] {
    const out: Inline[] = [];
    const text = this.text;
    let plain = "";
    const flush = () => {
      if (plain !== "") out.push({ type: "text", text: plain });
      plain = "";
    };
    let i = from;
    while (i < to) {
      const c = text[i] as string;
      if (c === "\\" && i + 1 < to && PUNCTUATION.test(text[i + 1] as string)) {
        plain += text[i + 1];
        i += 2;
        continue;
      }
      if (c === "\\" && text[i + 1] === "\n" && i + 1 < to) {
        flush();
        out.push({ type: "break" });
        i += 2;
        continue;
      }
      if (c === "\n") {
        // Two spaces before a line break make a hard break; otherwise it reads as a space.
        if (plain.endsWith("  ")) {
          plain = trimEnd(plain);
          flush();
          out.push({ type: "break" });
        } else {
          plain = trimEnd(plain) + "\n";
        }
        i += 1;
        while (i < to && text[i] === " ") i += 1;
        continue;
      }
      if (c === "`") {
        const run = runLength(text, i, "`", to);
        const close = this.#closingTicks(i + run, run, to);
        if (close < 0) {
          plain += "`".repeat(run);
          i += run;
          continue;
        }
        flush();
        let code = text.slice(i + run, close).replace(/\n/g, " ");
        if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "") code = code.slice(1, -1);
        out.push({ type: "code", text: code });
        i = close + run;
        continue;
      }
      if (c === "[" && depth < MAX_INLINE_DEPTH) {
        const close = this.#bracket.get(i);
        if (close !== undefined && close < to && text[close + 1] === "(") {
          const tail = LINK_TAIL.exec(text.slice(close + 1, Math.min(to, close + 1 + 4096)));
          const href = tail === null ? null : safeHref(tail[1] ?? tail[2] ?? "");
          if (tail !== null && href !== null) {
            flush();
            out.push({ type: "link", href, children: this.parse(i + 1, close, depth + 1) });
            i = close + 1 + tail[0].length;
            continue;
          }
        }
      }
      if ((c === "*" || c === "_") && depth < MAX_INLINE_DEPTH) {
        const run = runLength(text, i, c, to);
        const size = run >= 2 ? 2 : 1;
        const closer = this.#opens(i, run, c, to) ? this.#closer(i + size, c, size, to) : -1;
        if (closer >= 0) {
          flush();
          // A run of three opens both: the outer one first, the rest read inside it.
          out.push({ type: size === 2 ? "strong" : "em", children: this.parse(i + size, closer, depth + 1) });
          i = closer + size;
          continue;
        }
        plain += c.repeat(run);
        i += run;
        continue;
      }
      plain += c;
      i += 1;
    }
    flush();
    return out;
  }

  /** Whether the run of `c` at `at` can open emphasis: followed by a non-space, and for `_` not inside a word. */
  #opens(at: number, run: number, c: string, to: number): boolean {
    const next = at + run < to ? (this.text[at + run] as string) : " ";
    if (/\s/.test(next)) return false;
    return c === "*" || at === 0 || !/[\p{L}\p{N}]/u.test(this.text[at - 1] as string);
  }

  /** The start of the run of `size` (or more) `c` closing emphasis opened before `from`, or -1. */
  #closer(from: number, c: string, size: number, to: number): number {
    const key = `${c}${size}:${to}`;
    const failed = this.#noCloserFrom.get(key);
    if (failed !== undefined && from >= failed) return -1;
    const text = this.text;
    for (let i = from; i < to; ) {
      const ch = text[i];
      if (ch === "\\") {
        i += 2;
        continue;
      }
      if (ch === "`") {
        const run = runLength(text, i, "`", to);
        const close = this.#closingTicks(i + run, run, to);
        i = close < 0 ? i + run : close + run;
        continue;
      }
      if (ch === c) {
        const run = runLength(text, i, c, to);
        const before = text[i - 1] as string;
        const after = i + run < to ? (text[i + run] as string) : " ";
        const closes = i > from && !/\s/.test(before) && (c === "*" || !/[\p{L}\p{N}]/u.test(after));
        if (closes && (size === 2 ? run >= 2 : run === 1 || run >= 3)) return size === 2 && run >= 3 ? i + run - 2 : i;
        i += run;
        continue;
      }
      i += 1;
    }
    this.#noCloserFrom.set(key, Math.min(from, failed ?? from));
    return -1;
  }

  /** The start of the next run of exactly `run` backticks from `from`, or -1. */
  #closingTicks(from: number, run: number, to: number): number {
    const key = `\`${run}:${to}`;
    const failed = this.#noCloserFrom.get(key);
    if (failed !== undefined && from >= failed) return -1;
    for (let i = this.text.indexOf("`", from); i >= 0 && i < to; i = this.text.indexOf("`", i)) {
      const length = runLength(this.text, i, "`", to);
      if (length === run) return i;
      i += length;
    }
    this.#noCloserFrom.set(key, Math.min(from, failed ?? from));
    return -1;
  }
}

function runLength(text: string, at: number, c: string, to: number): number {
  let end = at;
  while (end < to && text[end] === c) end += 1;
  return end - at;
}
