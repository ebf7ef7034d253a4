/**
 * Text as the search index sees it (docs/search.md): one tokenizer, in the
 * domain, for the Note's index, the directories' copies and every query, so
 * both stores and every language are tokenized the same way. SQLite's FTS5
 * then only splits on the spaces this module puts (its `ascii` tokenizer: every
 * non-ASCII character is part of a token, and tokens hold no ASCII punctuation).
 *
 * - Words are runs of letters, digits and combining marks (Devanagari's vowel
 *   signs and viramas stay inside their word).
 * - Folded: NFKC, full case folding (upper then lower: "STRASSE" meets
 *   "straße"), and the accents of Latin, Greek and Cyrillic letters dropped
 *   (perché = perche).
 * - Scripts written without spaces (Han, Hiragana, Katakana, Hangul) become
 *   overlapping pairs of characters (東京都 → 東京 京都), so a word inside a
 *   sentence is found by its pairs in order; a lone character stays one token.
 */

/** A token and where it came from in the original text (UTF-16 offsets). */
export interface Token {
  text: string;
  start: number;
  end: number;
}

const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC\u3005`;
/** A run of CJK characters, or a run of other letters, digits and marks. */
const RUN = new RegExp(String.raw`[${CJK}]+|(?:(?![${CJK}])[\p{L}\p{N}\p{M}])+`, "gu");
const ACCENTED = /([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{Mn}+/gu;
const IS_CJK = new RegExp(`^[${CJK}]`, "u");
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[A-Za-z0-9]+/g;

/** A word folded as the index keeps it. */
export function foldWord(word: string): string {
  // ASCII letters and digits fold to their lower case (NFKC, NFD and the accents leave them as they are).
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFD").replace(ACCENTED, "$1").normalize("NFC");
}

/** The tokens of `text`, in order, each with its place in `text`. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  // ASCII text (most of it): its words are its runs of letters and digits, the same tokens the general rule finds, found faster.
  if (ASCII.test(text)) {
    for (const match of text.matchAll(ASCII_WORD)) tokens.push({ text: match[0].toLowerCase(), start: match.index, end: match.index + match[0].length });
    return tokens;
  }
  for (const match of text.matchAll(RUN)) {
    const run = match[0];
    const start = match.index;
    if (IS_CJK.test(run)) {
      const chars = [...run];
      if (chars.length === 1) {
        tokens.push({ text: foldWord(run), start, end: start + run.length });
        continue;
      }
      let offset = start;
      for (let i = 0; i + 1 < chars.length; i++) {
        const first = chars[i] as string;
        const pair = first + (chars[i + 1] as string);
        tokens.push({ text: foldWord(pair), start: offset, end: offset + pair.length });
        offset += first.length;
      }
      continue;
    }
    const folded = foldWord(run);
    // Folding can bring ASCII punctuation (NFKC of "½" is "1⁄2"; of "㎏" is "kg"): split again, keeping the run's place.
    for (const part of folded.split(/[^\p{L}\p{N}\p{M}]+/u)) if (part !== "") tokens.push({ text: part, start, end: start + run.length });
  }
  return tokens;
}

/** The text as the index stores it: its tokens, separated by single spaces. */
export function indexText(...texts: string[]): string {
  return texts
    .flatMap((text) => tokenize(text).map((t) => t.text))
    .join(" ");
}

/** A query's terms: each a token; for a CJK run, its pairs in order (a phrase), then each of its pairs. */
export function queryTerms(query: string): string[][] {
  const terms: string[][] = [];
  for (const match of query.matchAll(RUN)) {
    const words = tokenize(match[0]).map((t) => t.text);
    if (words.length === 0) continue;
    if (IS_CJK.test(match[0])) {
      // The run as a phrase (a word inside a sentence: its pairs in order), and each pair on its own, so that a
      // question written without spaces ("大阪の顧客は誰ですか") still finds what holds some of its words; the
      // phrase's own score keeps an item holding the whole run first.
      terms.push(words);
      if (words.length > 1) for (const pair of words) terms.push([pair]);
    } else for (const word of words) terms.push([word]);
  }
  return terms;
}

/**
 * An FTS5 MATCH expression for `query`, or null when it holds no word: every
 * term as a quoted string (FTS5's own syntax in the query is only text: the
 * tokenizer drops every ASCII punctuation mark, quotes included), any of them
 * (the ranking puts items with more and rarer terms first).
 */
export function matchExpression(query: string): string | null {
  const terms = queryTerms(query);
  return terms.length === 0 ? null : termsExpression(terms);
}

/** The FTS5 MATCH expression of terms as queryTerms gives them: each a quoted phrase, any of them, each once. */
export function termsExpression(terms: readonly (readonly string[])[]): string {
  return uniqueTerms(terms)
    .map((words) => `"${words.join(" ")}"`)
    .join(" OR ");
}

/** The terms each once, in their first order: what a MATCH expression and the memory store's ranking take. */
export function uniqueTerms(terms: readonly (readonly string[])[]): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const words of terms) {
    const spelled = words.join(" ");
    if (words.length === 0 || seen.has(spelled)) continue;
    seen.add(spelled);
    out.push([...words]);
  }
  return out;
}

/**
 * A passage of `text` around its first token that matches a query term, at
 * most `max` characters, with "…" where it was cut; the text's start when
 * nothing matches.
 */
export function snippet(text: string, query: string, max: number): string {
  const wanted = new Set(queryTerms(query).flat());
  const hit = tokenize(text).find((t) => wanted.has(t.text));
  const flat = text.replace(/\s+/gu, " ");
  if (hit === undefined) return cut(flat, 0, max);
  // The offsets are the original text's; whitespace runs collapse before it, so find the place again in the flat text.
  const before = text.slice(0, hit.start).replace(/\s+/gu, " ");
  const at = before.length;
  const start = Math.max(0, at - Math.floor(max / 3));
  return cut(flat, start, max);
}

function cut(text: string, start: number, max: number): string {
  let from = start;
  // Never start or end inside a surrogate pair.
  if (from > 0 && /[\udc00-\udfff]/.test(text.charAt(from))) from -= 1;
  const room = max - (from > 0 ? 1 : 0);
  if (text.length - from <= room) return (from > 0 ? "…" : "") + text.slice(from);
  let end = from + room - 1;
  if (/[\ud800-\udbff]/.test(text.charAt(end - 1))) end -= 1;
  return (from > 0 ? "…" : "") + text.slice(from, end) + "…";
}
