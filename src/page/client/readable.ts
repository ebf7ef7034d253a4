/**
 * @module
 * Attachments as a person reads them: a URL's host in Unicode (RFC 3492
 * punycode decoded), a file's size in KB or MB, a time as a date. Pure
 * functions of their input (the date's format reads the browser's locale).
 */

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;
const MAX_CODE_POINT = 0x10ffff;

/** RFC 3492 §6.1. */
function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / points);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

/** A basic code point's digit value (RFC 3492 §5), or BASE when it is none. */
function digitOf(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 22; // 0-9: 26-35
  if (code >= 0x41 && code <= 0x5a) return code - 0x41; // A-Z: 0-25
  if (code >= 0x61 && code <= 0x7a) return code - 0x61; // a-z: 0-25
  return BASE;
}

/**
 * Decodes a punycode string (the part after "xn--"), RFC 3492 §6.2; null when
 * it is not valid punycode (a bad digit, an overflow, a code point out of range).
 *
 * @example
 * decodePunycode("mnchen-3ya") // "münchen"
 */
export function decodePunycode(input: string): string | null {
  const output: number[] = [];
  const delimiter = input.lastIndexOf("-");
  for (let j = 0; j < Math.max(delimiter, 0); j += 1) {
    const code = input.charCodeAt(j);
    if (code >= 0x80) return null;
    output.push(code);
  }
  let n = INITIAL_N;
  let i = 0;
  let bias = INITIAL_BIAS;
  for (let at = delimiter > 0 ? delimiter + 1 : 0; at < input.length; ) {
    const old = i;
    let w = 1;
    for (let k = BASE; ; k += BASE) {
      if (at >= input.length) return null;
      const digit = digitOf(input.charCodeAt(at));
      at += 1;
      if (digit >= BASE || digit > Math.floor((Number.MAX_SAFE_INTEGER - i) / w)) return null;
      i += digit * w;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      if (w > Math.floor(Number.MAX_SAFE_INTEGER / (BASE - t))) return null;
      w *= BASE - t;
    }
    const points = output.length + 1;
    bias = adapt(i - old, points, old === 0);
    n += Math.floor(i / points);
    i %= points;
    if (n > MAX_CODE_POINT || (n >= 0xd800 && n <= 0xdfff)) return null;
    output.splice(i, 0, n);
    i += 1;
  }
  return String.fromCodePoint(...output);
}

/** Controls, format characters (bidi overrides, zero-width), separators, unassigned and private-use code points. */
const UNSHOWABLE = /[\p{C}\p{Z}]/u;

/**
 * A host name with each punycode label ("xn--…") in Unicode: "xn--mnchen-3ya.de" is
 * "münchen.de". A label that does not decode, decodes to plain ASCII, or would
 * show an invisible or direction-changing character stays as it is.
 */
export function hostInUnicode(host: string): string {
  return host
    .split(".")
    .map((label) => {
      if (!/^xn--/i.test(label)) return label;
      const decoded = decodePunycode(label.slice(4).toLowerCase());
      if (decoded === null || UNSHOWABLE.test(decoded) || /^[\x00-\x7f]*$/.test(decoded)) return label;
      return decoded;
    })
    .join(".");
}

/** A source's URL as shown: http(s) only (else null), with its host in Unicode and no scheme. */
export function readableUrl(url: string): { href: string; host: string; shown: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  const host = hostInUnicode(parsed.hostname) + (parsed.port === "" ? "" : `:${parsed.port}`);
  const rest = `${parsed.pathname === "/" ? "" : parsed.pathname}${parsed.search}${parsed.hash}`;
  return { href: parsed.href, host, shown: `${host}${rest}` };
}

const UNITS = ["KB", "MB", "GB", "TB"] as const;

/** A size in bytes as a person reads it: "512 bytes", "2 KB", "1.5 MB" (1 KB = 1,024 bytes). */
export function readableSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = value >= 100 ? Math.round(value).toString() : (Math.round(value * 10) / 10).toString();
  return `${rounded} ${UNITS[unit]}`;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** An ISO time as a date and time in the reader's locale and time zone ("2 Dec 2026, 07:10"); the text as given when it is no time. */
export function readableDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : DATE_TIME.format(date);
}
