/** What a citation URL may be, and the normalized form that names its page (SPEC §5). */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/note/limits.js";
import { parseSourceUrl, type ParsedUrl } from "../../src/note/url.js";
import { SEVEN_SPELLINGS } from "../support/spellings.js";

/** The normalized form, failing the test with the reason if the URL was refused. */
function normalized(raw: string): string {
  const parsed = parseSourceUrl(raw);
  if (!parsed.ok) throw new Error(`${JSON.stringify(raw)} was refused: ${parsed.reason}`);
  return parsed.normalized;
}

function refusal(raw: string): string {
  const parsed: ParsedUrl = parseSourceUrl(raw);
  if (parsed.ok) throw new Error(`${JSON.stringify(raw)} was accepted as ${parsed.normalized}`);
  return parsed.reason;
}


describe("the normalized form names the page", () => {
  it("the seven spellings of one page normalize to the same string", () => {
    const forms = SEVEN_SPELLINGS.map(normalized);
    expect(new Set(forms)).toEqual(new Set(["https://example.org/report"]));
  });

  it("the spellings combined still name the same page", () => {
    expect(normalized("http://www.example.org/report/?utm_source=a&utm_medium=b#top")).toBe("https://example.org/report");
    expect(normalized("www.example.org/report/")).toBe("https://example.org/report");
  });

  it("keeps the URL as given (made absolute) next to the normalized form", () => {
    const parsed = parseSourceUrl("www.Example.org/report/?utm_source=x#top");
    expect(parsed).toEqual({
      ok: true,
      url: "https://www.example.org/report/?utm_source=x#top",
      normalized: "https://example.org/report",
    });
  });

  it("lower-cases an upper-case host and scheme", () => {
    expect(normalized("HTTPS://EXAMPLE.ORG/report")).toBe("https://example.org/report");
    expect(normalized("https://WWW.Example.Org/report")).toBe("https://example.org/report");
  });

  it("writes an internationalized host as punycode", () => {
    expect(normalized("https://Bücher.example/x")).toBe("https://xn--bcher-kva.example/x");
    expect(normalized("https://xn--bcher-kva.example/x")).toBe("https://xn--bcher-kva.example/x");
  });

  it("drops a default port and keeps a non-default one", () => {
    expect(normalized("https://example.org:443/x")).toBe("https://example.org/x");
    expect(normalized("http://example.org:80/x")).toBe("https://example.org/x");
    expect(normalized("https://example.org:8443/x")).toBe("https://example.org:8443/x");
    expect(normalized("example.org:8080/x")).toBe("https://example.org:8080/x");
  });

  it("keeps the path's case, which a server may treat as a different page", () => {
    expect(normalized("https://example.org/Report")).toBe("https://example.org/Report");
  });

  it("keeps non-utm query parameters in their order and drops every utm_ one", () => {
    expect(normalized("https://example.org/search?q=notes&utm_source=x&page=2&UTM_Campaign=y&a=1")).toBe(
      "https://example.org/search?q=notes&page=2&a=1",
    );
    expect(normalized("https://example.org/search?b=2&a=1")).not.toBe(normalized("https://example.org/search?a=1&b=2"));
  });

  it("two different pages stay two different normalized forms", () => {
    expect(normalized("https://example.org/report")).not.toBe(normalized("https://example.org/report-2"));
    expect(normalized("https://example.org/report")).not.toBe(normalized("https://example.com/report"));
    expect(normalized("https://example.org/report?id=1")).not.toBe(normalized("https://example.org/report?id=2"));
  });

  it("accepts an IP address host", () => {
    expect(normalized("http://192.0.2.7/x")).toBe("https://192.0.2.7/x");
    expect(normalized("https://[2001:db8::1]/x")).toBe("https://[2001:db8::1]/x");
  });
});

describe("a URL that is not an http(s) page is refused with a reason", () => {
  const refused: [string, string][] = [
    ["javascript: scheme", "javascript:alert(1)"],
    ["javascript: scheme in mixed case", "JaVaScRiPt:alert(1)"],
    ["data: scheme", "data:text/html,x"],
    ["file: scheme", "file:///etc/passwd"],
    ["ftp: scheme", "ftp://example.org/x"],
    ["user and password", "https://user:pass@example.org/"],
    ["a user name alone", "https://user@example.org/"],
    ["a scheme and no host", "http://"],
    ["an empty authority", "https:///path"],
    ["a protocol-relative URL", "//example.org/x"],
    ["a leading space", " https://example.org"],
    ["a trailing newline", "https://example.org/report\n"],
    ["a tab inside the scheme", "java\tscript:alert(1)"],
    ["a zero-width space inside the host", "https://exam\u200bple.org/x"],
    ["a bidi override inside the host", "https://exam\u202eple.org/x"],
    ["a NUL", "https://example.org/\u0000x"],
    ["a single-label host", "https://localhost/x"],
    ["the empty string", ""],
  ];

  it.each(refused)("refuses %s", (_what, raw) => {
    const reason = refusal(raw);
    expect(reason.length).toBeGreaterThan(0);
  });

  it("names the refused scheme in the reason", () => {
    expect(refusal("JaVaScRiPt:alert(1)")).toContain("javascript:");
    expect(refusal("ftp://example.org/x")).toContain("ftp:");
  });

  it("says why a URL with credentials is refused", () => {
    expect(refusal("https://user:pass@example.org/")).toMatch(/credentials/);
    expect(refusal("https://user@example.org/")).toMatch(/credentials/);
  });

  it("refuses a URL one character over the length limit and accepts one at the limit", () => {
    const base = "https://example.org/";
    const atLimit = base + "a".repeat(LIMITS.urlLength - base.length);
    expect(atLimit.length).toBe(LIMITS.urlLength);
    expect(parseSourceUrl(atLimit).ok).toBe(true);
    expect(refusal(`${atLimit}a`)).toMatch(String(LIMITS.urlLength));
  });

  it("refuses an empty authority as a URL without a host, whatever the path looks like", () => {
    // The WHATWG parser skips the extra slash and reads "https:///example.org/x" as host
    // example.org; as written the URL has no host (SPEC §5).
    expect(refusal("https:///path")).toMatch(/no host/);
    expect(refusal("https:///example.org/x")).toMatch(/no host/);
  });

  it("refuses invisible characters the URL parser would silently drop", () => {
    // The WHATWG parser strips a tab, so "java\tscript:" would otherwise become "javascript:".
    expect(new URL("java\tscript:alert(1)").protocol).toBe("javascript:");
    expect(refusal("java\tscript:alert(1)")).toMatch(/whitespace|control|invisible/);
    expect(refusal("https://exam\u202eple.org/x")).toMatch(/invisible/);
  });

  it("drops www. only where a domain remains, and a host's trailing dot", () => {
    expect(normalized("https://www.org/x")).toBe("https://www.org/x");
    expect(normalized("https://example.org./report")).toBe(normalized("https://example.org/report"));
  });

  it("refuses a soft hyphen, which the parser would silently remove from a host", () => {
    expect(refusal("https://exa\u00admple.org/")).toMatch(/invisible/);
  });
});
