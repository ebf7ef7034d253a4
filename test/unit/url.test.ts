/** What a citation URL may be, and the normalized form that names its page (docs/spec.md §5). */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/note/limits.js";
import { parseSourceUrl, type ParsedUrl } from "../../src/note/attachments/url.js";
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
    ["an empty label in the host", "https://example..org/x"],
    ["a host that starts with a dot", "https://.org/x"],
    ["a host that is only dots", "https://../x"],
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
    // example.org; as written the URL has no host (docs/spec.md §5).
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

describe("the host is a domain name or an IP address written as one", () => {
  const respelled: [string, string][] = [
    ["1", "0.0.0.1"],
    ["123", "0.0.0.123"],
    ["https://0/", "0.0.0.0"],
    ["0x7f.1", "127.0.0.1"],
    ["https://127.1/x", "127.0.0.1"],
    ["https://0177.0.0.1/x", "127.0.0.1"],
    ["https://01.2.3.4/x", "1.2.3.4"],
    ["https://1.2.3.0x4/x", "1.2.3.4"],
    ["https://1.2.3.4./x", "1.2.3.4"],
    ["https://%31.2.3.4/x", "1.2.3.4"],
  ];

  it.each(respelled)("refuses %s, which the URL parser reads as the IPv4 address %s, saying how to write one", (raw, address) => {
    expect(new URL(raw.includes("://") ? raw : `https://${raw}`).hostname).toBe(address);
    const reason = refusal(raw);
    expect(reason).toContain(`the IP address ${address}`);
    expect(reason).toContain("write an IP address as four decimal numbers, e.g. 93.184.215.14");
  });

  // Citations are never fetched, so no address is refused for its value (docs/decisions.md, Sources).
  const citableAddresses: [string, string][] = [
    ["http://127.0.0.1:8080/report", "https://127.0.0.1:8080/report"],
    ["http://10.0.0.1/wiki", "https://10.0.0.1/wiki"],
    ["192.168.1.1/admin", "https://192.168.1.1/admin"],
    ["https://0.0.0.0/", "https://0.0.0.0"],
    ["https://255.255.255.255/x", "https://255.255.255.255/x"],
    ["https://[::1]/x", "https://[::1]/x"],
    ["https://1.2.3.4:080/x", "https://1.2.3.4:80/x"],
  ];

  it.each(citableAddresses)("accepts %s: four decimal numbers or an IPv6 literal, private and loopback included", (raw, page) => {
    expect(normalized(raw)).toBe(page);
  });

  it("refuses a label that starts or ends with a hyphen", () => {
    expect(refusal("https://-ex.org/")).toBe('the host "-ex.org" is not a domain name: the label "-ex" starts or ends with a hyphen');
    expect(refusal("https://ex-.org/")).toMatch(/"ex-" starts or ends with a hyphen/);
    expect(refusal("a.-b.org/x")).toMatch(/"-b" starts or ends with a hyphen/);
  });

  it("refuses a character that no domain name holds, though the URL parser lets it through", () => {
    for (const raw of ["https://*.ex.org/", "https://ex!.org/", "https://e~x.org/", "https://ex$.org/"]) {
      expect(new URL(raw).hostname).not.toBe("");
      expect(refusal(raw)).toMatch(/other than a letter, digit, hyphen or underscore/);
    }
  });

  it("accepts an underscore, and a hyphen inside a label", () => {
    expect(normalized("https://my_site.example.org/x")).toBe("https://my_site.example.org/x");
    expect(normalized("https://_dmarc.example.org/")).toBe("https://_dmarc.example.org");
    expect(normalized("https://my-site.example.org/x")).toBe("https://my-site.example.org/x");
  });

  it("refuses a label of 64 characters and accepts one of 63", () => {
    expect(normalized(`https://${"a".repeat(63)}.org/x`)).toBe(`https://${"a".repeat(63)}.org/x`);
    expect(refusal(`https://${"a".repeat(64)}.org/x`)).toMatch(/is 64 characters long, more than 63/);
  });

  it("measures a label as punycode: 60 characters written are 67 once encoded", () => {
    const label = "bücher".repeat(10);
    expect(label.length).toBe(60);
    expect(refusal(`https://${label}.example/x`)).toMatch(/is 67 characters long, more than 63/);
  });

  it("refuses a host of 254 or 323 characters and accepts one of 253, with or without the root's dot", () => {
    const host253 = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    expect(host253.length).toBe(253);
    expect(normalized(`https://${host253}/x`)).toBe(`https://${host253}/x`);
    expect(normalized(`https://${host253}./x`)).toBe(`https://${host253}/x`);
    expect(refusal(`https://${host253}e/x`)).toBe("the host is 254 characters long; a domain name has at most 253");
    const host323 = `${`${"a".repeat(63)}.`.repeat(5)}org`;
    expect(host323.length).toBe(323);
    expect(refusal(`https://${host323}/x`)).toMatch(/323 characters long/);
  });

  it("refuses port 0 however it is written, and accepts ports 1 and 65535", () => {
    expect(refusal("ex.org:0/a")).toMatch(/port 0/);
    expect(refusal("https://ex.org:00/a")).toMatch(/port 0/);
    expect(normalized("ex.org:1/a")).toBe("https://ex.org:1/a");
    expect(normalized("https://ex.org:65535/a")).toBe("https://ex.org:65535/a");
  });
});

describe("the length limit holds for what is stored", () => {
  it("refuses a URL within the limit as written that percent-encoding takes past it, naming the limit", () => {
    const raw = `https://example.org/${"é".repeat(LIMITS.urlLength - 20)}`;
    expect(raw.length).toBe(LIMITS.urlLength);
    expect(new URL(raw).href.length).toBeGreaterThan(LIMITS.urlLength * 5);
    expect(refusal(raw)).toMatch(new RegExp(`percent-encoded.*${LIMITS.urlLength}`));
  });

  it("accepts an encoded URL whose stored form is exactly at the limit, and refuses one character more", () => {
    const base = "https://example.org/";
    const room = LIMITS.urlLength - base.length;
    const atLimit = `${base}${"é".repeat(room / 6)}${"a".repeat(room % 6)}`;
    const parsed = parseSourceUrl(atLimit);
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(parsed.url.length).toBe(LIMITS.urlLength);
    expect(parsed.normalized.length).toBeLessThanOrEqual(LIMITS.urlLength);
    expect(refusal(`${atLimit}a`)).toMatch(String(LIMITS.urlLength));
  });

  it("counts the normalized form too: http at the limit becomes https one character longer", () => {
    const base = "http://example.org/";
    const atLimit = base + "a".repeat(LIMITS.urlLength - base.length);
    expect(refusal(atLimit)).toMatch(String(LIMITS.urlLength));
  });
});

describe("text that is not well-formed Unicode is refused", () => {
  it("refuses a lone surrogate in a URL, saying where, instead of storing U+FFFD", () => {
    // The URL parser would encode the lone surrogate as U+FFFD, %EF%BF%BD: not the URL that was sent.
    expect(new URL("https://example.org/a\ud800b").pathname).toBe("/a%EF%BF%BDb");
    expect(refusal("https://example.org/a\ud800b")).toBe("the URL is not well-formed Unicode (a lone surrogate at index 21)");
    expect(refusal("https://example.org/\udc00")).toMatch(/well-formed Unicode/);
  });

  it("accepts an emoji, a surrogate pair", () => {
    expect(normalized("https://example.org/😀")).toBe("https://example.org/%F0%9F%98%80");
  });
});

describe("percent-encoding and empty segments do not make a second page (RFC 3986 §6.2.2)", () => {
  it("an escaped unreserved character is that character", () => {
    expect(normalized("https://example.org/%72eport")).toBe("https://example.org/report");
    expect(normalized("https://example.org/%41%5a%61%7A%30%39%2D%2E%5F%7E")).toBe("https://example.org/AZaz09-._~");
    expect(normalized("https://example.org/report?q=%6eotes")).toBe(normalized("https://example.org/report?q=notes"));
  });

  it("other escapes keep their meaning, with the hex in upper case", () => {
    expect(normalized("https://example.org/caf%c3%a9")).toBe("https://example.org/caf%C3%A9");
    expect(normalized("https://example.org/café")).toBe("https://example.org/caf%C3%A9");
    expect(normalized("https://example.org/a%2fb")).toBe("https://example.org/a%2Fb");
    expect(normalized("https://example.org/a%2Fb")).not.toBe(normalized("https://example.org/a/b"));
    expect(normalized("https://example.org/s?q=a%26b=c")).toBe("https://example.org/s?q=a%26b=c");
    expect(normalized("https://example.org/s?q=a%26b")).not.toBe(normalized("https://example.org/s?q=a&b"));
  });

  it("a percent sign that starts no escape is %25, so decoding never makes a new escape", () => {
    expect(normalized("https://example.org/a%%32%65b")).toBe("https://example.org/a%252eb");
    expect(normalized("https://example.org/100%")).toBe(normalized("https://example.org/100%25"));
    expect(normalized("https://example.org/%zz")).toBe("https://example.org/%25zz");
  });

  it("an escaped utm_ parameter name is still dropped", () => {
    expect(normalized("https://example.org/report?%75tm_source=x")).toBe("https://example.org/report");
  });

  it("empty path segments name the same page as the path without them", () => {
    expect(normalized("https://example.org//report")).toBe("https://example.org/report");
    expect(normalized("https://example.org/a//b///c")).toBe("https://example.org/a/b/c");
    expect(normalized("https://example.org/report//")).toBe("https://example.org/report");
    expect(normalized("https://example.org//")).toBe("https://example.org");
  });

  it("keeps the stored URL as given: only the normalized form is rewritten", () => {
    const parsed = parseSourceUrl("https://example.org//%72eport");
    expect(parsed).toEqual({ ok: true, url: "https://example.org//%72eport", normalized: "https://example.org/report" });
  });

  it("a double slash in the query is data, not a path", () => {
    expect(normalized("https://example.org/go?to=https://a.example//b")).toBe("https://example.org/go?to=https://a.example//b");
  });
});
