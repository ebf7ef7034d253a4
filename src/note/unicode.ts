/**
 * Well-formed text. A lone UTF-16 surrogate (half of a cut emoji) has no
 * UTF-8 form: storage and the wire would turn it into U+FFFD, so the text
 * kept would not be the text acknowledged. Every text field refuses it.
 */

// With the `u` flag a surrogate pair is one code point; only a lone surrogate is in the category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** The index of the first lone surrogate in `text`, or -1 when it is well-formed. */
export function loneSurrogateAt(text: string): number {
  // The runtime's own check first: the search, with a Unicode-aware pattern, only for text that fails it.
  return text.isWellFormed() ? -1 : text.search(LONE_SURROGATE);
}

/** The problem, as every text check words it. */
export function notWellFormed(at: number): string {
  return `must be well-formed Unicode (a lone surrogate at index ${at})`;
}
