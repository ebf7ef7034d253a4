/**
 * Text as Unicode, not as UTF-16 units. A lone surrogate (half of a cut
 * emoji) has no UTF-8 form: storage and the wire would turn it into U+FFFD,
 * so the text kept would not be the text acknowledged; every text field
 * refuses it. And text sorts by code point, as SQLite sorts UTF-8.
 */

// With the `u` flag a surrogate pair is one code point; only a lone surrogate is in the category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** The index of the first lone surrogate in `text`, or -1 when it is well-formed. */
export function loneSurrogateAt(text: string): number {
  // The runtime's own check first: the search, with a Unicode-aware pattern, only for text that fails it.
  return text.isWellFormed() ? -1 : text.search(LONE_SURROGATE);
}

/** Nothing a reader would see: spaces, controls, format characters (bidi controls, zero widths) and the other default-ignorable ones. */
const INVISIBLE = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u;

/** Whether `text` shows nothing at all (the empty text included). */
export function invisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/** Text to echo in an answer: at most `max` UTF-16 units, never cutting a surrogate pair, and saying how long it was. */
export function clip(text: string, max = 200): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}

/** The problem, as every text check words it. */
export function notWellFormed(at: number): string {
  return `must be well-formed Unicode (a lone surrogate at index ${at})`;
}

/** SQLite's BINARY order of UTF-8 text, which is code point order (UTF-16's `<` puts U+10000 and up before U+E000). */
export function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
