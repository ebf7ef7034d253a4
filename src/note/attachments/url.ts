/**
 * Citation URLs (docs/spec.md §5): what `add_note_source` accepts, and the normalized
 * form that names a page, so seven spellings of one page become one source.
 */
import { LIMITS } from "../limits.js";
import { loneSurrogateAt } from "../unicode.js";

export type ParsedUrl =
  | { ok: true; url: string; normalized: string }
  | { ok: false; reason: string };

// C0 and C1 controls, every Unicode space, and the invisible format characters
// (zero-width, bidi overrides, BOM) that make one URL read as another. The
// WHATWG parser would silently strip or skip some of these ("java\tscript:"
// parses as "javascript:"), so they are refused before parsing.
const FORBIDDEN_CHARS = /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/u;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/**
 * Parses a citation as given: `http`, `https`, or a scheme-less `host/path`
 * (taken as https). Anything else is refused with the reason.
 *
 * @example
 * parseSourceUrl("www.Example.org/report/?utm_source=x#top")
 * // { ok: true, url: "https://www.example.org/report/?utm_source=x#top",
 * //   normalized: "https://example.org/report" }
 */
export function parseSourceUrl(raw: string): ParsedUrl {
  if (raw.length === 0) return { ok: false, reason: "the URL is empty" };
  if (raw.length > LIMITS.urlLength) {
    return { ok: false, reason: `the URL is longer than ${LIMITS.urlLength} characters` };
  }
  const loneSurrogate = loneSurrogateAt(raw);
  if (loneSurrogate >= 0) {
    return { ok: false, reason: `the URL is not well-formed Unicode (a lone surrogate at index ${loneSurrogate})` };
  }
  if (FORBIDDEN_CHARS.test(raw)) {
    return {
      ok: false,
      reason: "the URL contains whitespace, control or invisible characters; percent-encode them",
    };
  }

  let candidate = raw;
  const scheme = SCHEME.exec(raw)?.[1];
  // "example.org:8080/x" looks like a scheme "example.org"; a real scheme has no dot.
  if (scheme !== undefined && !scheme.includes(".")) {
    const lower = scheme.toLowerCase();
    if (lower !== "http" && lower !== "https") {
      return { ok: false, reason: `the scheme "${lower}:" is not allowed; use http or https` };
    }
    if (!/^https?:\/\/[^/\\]/i.test(raw)) {
      return { ok: false, reason: "the URL has no host: expected http(s)://host/path" };
    }
  } else {
    if (raw.startsWith("/") || raw.startsWith("\\")) {
      return { ok: false, reason: "the URL has no host: expected host/path or https://host/path" };
    }
    candidate = `https://${raw}`;
  }

  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { ok: false, reason: "the URL cannot be parsed" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `the scheme "${url.protocol}" is not allowed; use http or https` };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "the URL carries credentials (user:password@); remove them" };
  }
  const hostRefusal = hostProblem(url.hostname, writtenHost(candidate));
  if (hostRefusal !== undefined) return { ok: false, reason: hostRefusal };
  if (url.port === "0") {
    return { ok: false, reason: "the port 0 is not a port a server listens on; leave the port out or give the real one" };
  }
  const normalized = normalize(url);
  // The limit is on what is stored: percent-encoding lengthens a URL (é is %C3%A9), and
  // the normalized form may gain the s of https.
  const stored = Math.max(url.href.length, normalized.length);
  if (stored > LIMITS.urlLength) {
    return { ok: false, reason: `the URL is ${stored} characters once percent-encoded, longer than ${LIMITS.urlLength}` };
  }
  return { ok: true, url: url.href, normalized };
}

const DOMAIN_NAME_LENGTH = 253;
const LABEL_LENGTH = 63;
// Letters, digits and hyphens (RFC 1123), and the underscore that real sites use in host names.
const LABEL_CHARS = /^[a-z0-9_-]+$/i;
// The parser prints every IPv4 address as a dotted quad, and nothing else in this shape: a
// host whose last label is a number is read as IPv4 or refused.
const DOTTED_QUAD = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Why a host is neither a domain name nor an IP address written as one, or undefined.
 * `host` is as the parser prints it (lower case, punycode); `written` is as it was sent,
 * because the parser reads "1", "0x7f.1" and "127.1" as the addresses 0.0.0.1 and 127.0.0.1.
 */
function hostProblem(host: string, written: string): string | undefined {
  if (host === "") return "the URL has no host";
  // The parser has checked an IPv6 literal, and prints it in its one canonical spelling.
  if (host.startsWith("[")) return undefined;
  if (DOTTED_QUAD.test(host)) {
    if (written === host) return undefined;
    return `the host "${written}" would be read as the IP address ${host}; write an IP address as four decimal numbers, e.g. 93.184.215.14`;
  }
  return domainNameProblem(host);
}

/** Why `host` is not a domain name: at least two labels, each a valid label, 253 characters at most. */
function domainNameProblem(host: string): string | undefined {
  // A trailing dot is the DNS root, not a label ("example.org." is "example.org").
  const name = host.replace(/\.$/, "");
  const labels = name.split(".");
  if (labels.length < 2 || labels.includes("")) return `the host "${host}" is not a domain name or an IP address`;
  if (name.length > DOMAIN_NAME_LENGTH) {
    return `the host is ${name.length} characters long; a domain name has at most ${DOMAIN_NAME_LENGTH}`;
  }
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem !== undefined) return `the host "${host}" is not a domain name: ${problem}`;
  }
  return undefined;
}

function labelProblem(label: string): string | undefined {
  if (label.length > LABEL_LENGTH) return `the label "${label}" is ${label.length} characters long, more than ${LABEL_LENGTH}`;
  if (!LABEL_CHARS.test(label)) return `the label "${label}" holds a character other than a letter, digit, hyphen or underscore`;
  if (label.startsWith("-") || label.endsWith("-")) return `the label "${label}" starts or ends with a hyphen`;
  return undefined;
}

/** The host as sent in an absolute http(s) URL: after any "user@", before any ":port". */
function writtenHost(absolute: string): string {
  const authority = /^https?:\/\/([^/\\?#]*)/i.exec(absolute)?.[1] ?? "";
  return authority.slice(authority.lastIndexOf("@") + 1).replace(/:[^:]*$/, "");
}

/**
 * The page a URL names: https, bare lower-case host, no default port,
 * fragment, utm_* or trailing slash; in the path and query, escapes of
 * unreserved characters decoded and other escapes in upper case; in the path,
 * no empty segments (see docs/decisions.md, Sources).
 */
function normalize(url: URL): string {
  // "example.org." is "example.org"; "www.org" keeps its www.
  const bare = url.hostname.replace(/\.$/, "");
  const host = bare.startsWith("www.") && bare.slice(4).includes(".") ? bare.slice(4) : bare;
  // URL already dropped the default port of the URL's own scheme; 443 is https's.
  const port = url.port === "" || url.port === "443" ? "" : `:${url.port}`;
  const path = normalizeEscapes(url.pathname).replace(/\/{2,}/g, "/").replace(/\/$/, "");
  // Decoding never yields "&" or "=" (they are reserved), so the parameters split as written.
  const query = normalizeEscapes(url.search.slice(1))
    .split("&")
    .filter((part) => part !== "" && !isTrackingParameter(part))
    .join("&");
  return `https://${host}${port}${path}${query === "" ? "" : `?${query}`}`;
}

/**
 * RFC 3986 §6.2.2: "%72" is "r" (an unreserved character), and "%c3" is "%C3".
 * A "%" that starts no escape is a percent sign, "%25", so that decoding
 * "%%32%65" cannot make an escape ("%2e") that was never sent.
 */
function normalizeEscapes(part: string): string {
  return part.replace(/%([0-9A-Fa-f]{2})?/g, (_escape, hex: string | undefined) => {
    if (hex === undefined) return "%25";
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

const UNRESERVED = /^[A-Za-z0-9._~-]$/;

function isTrackingParameter(part: string): boolean {
  const name = part.split("=", 1)[0] ?? "";
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // A malformed escape is not a utm_ name; keep the parameter as written.
  }
  return decoded.toLowerCase().startsWith("utm_");
}
