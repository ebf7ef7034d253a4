/** Attachments as a person reads them (src/page/client/readable.ts): punycode hosts in Unicode, sizes, dates. */
import { describe, expect, it } from "vitest";
import { decodePunycode, hostInUnicode, readableDate, readableSize, readableUrl } from "../../src/page/client/readable.js";

describe("decodePunycode (RFC 3492)", () => {
  it("decodes the RFC's samples (§7.1) and common hosts", () => {
    // (A) Arabic (Egyptian), (B) Chinese (simplified), (L) 3年B組金八先生, (S) -> $1.00 <-
    expect(decodePunycode("egbpdaj6bu4bxfgehfvwxn")).toBe("\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F");
    expect(decodePunycode("ihqwcrb4cv8a8dqg056pqjye")).toBe("\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587");
    expect(decodePunycode("3B-ww4c5e180e575a65lsy2b")).toBe("3\u5E74B\u7D44\u91D1\u516B\u5148\u751F");
    expect(decodePunycode("-> $1.00 <--")).toBe("-> $1.00 <-");
    expect(decodePunycode("mnchen-3ya")).toBe("münchen");
    expect(decodePunycode("bcher-kva")).toBe("bücher");
  });

  it("refuses what is not punycode", () => {
    for (const bad of ["mnchen-3y!", "mnchen-3y", "zzzzzzzzzzzzzzz", "ü-abc"]) expect(decodePunycode(bad), bad).toBeNull();
  });
});

describe("hostInUnicode and readableUrl", () => {
  it("shows punycode labels in Unicode, and keeps a label that would hide or flip text", () => {
    expect(hostInUnicode("xn--mnchen-3ya.de")).toBe("münchen.de");
    expect(hostInUnicode("www.XN--BCHER-KVA.example")).toBe("www.bücher.example");
    expect(hostInUnicode("example.org")).toBe("example.org");
    expect(hostInUnicode("xn--zzzzzzzz.org")).toBe("xn--zzzzzzzz.org");
    // U+202E (right-to-left override) encoded: shown as the punycode it is.
    expect(decodePunycode("ab-h4t")).toMatch(/\u202e/);
    expect(hostInUnicode("xn--ab-h4t.org")).toBe("xn--ab-h4t.org");
    // A label that decodes to plain ASCII is no IDN.
    expect(hostInUnicode("xn--abc-.org")).toBe("xn--abc-.org");
  });

  it("answers http(s) URLs only, shown without the scheme", () => {
    expect(readableUrl("https://xn--mnchen-3ya.de/stadt?x=1#top")).toEqual({ href: "https://xn--mnchen-3ya.de/stadt?x=1#top", host: "münchen.de", shown: "münchen.de/stadt?x=1#top" });
    expect(readableUrl("http://example.org:8080/")).toMatchObject({ shown: "example.org:8080" });
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "mailto:a@b.c", "not a url"]) expect(readableUrl(bad), bad).toBeNull();
  });
});

describe("readableSize and readableDate", () => {
  it("sizes in bytes, KB, MB, GB and TB (1 KB = 1,024 bytes)", () => {
    expect([0, 1, 1023, 1024, 1536, 2048, 1_572_864, 500 * 1024 * 1024, 2 ** 40].map(readableSize)).toEqual([
      "0 bytes", "1 byte", "1023 bytes", "1 KB", "1.5 KB", "2 KB", "1.5 MB", "500 MB", "1 TB",
    ]);
  });

  it("a time with its date, never the raw ISO text", () => {
    const shown = readableDate("2026-12-02T07:10:00.000Z");
    expect(shown).toMatch(/2026/);
    expect(shown).not.toContain("T07");
    expect(readableDate("not a time")).toBe("not a time");
  });
});
