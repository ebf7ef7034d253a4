/**
 * The project carries its own specification (docs/spec.md): no file may cite one that a
 * person who clones the repository does not have, every section a file cites must exist,
 * and the limits the specification states must be LIMITS' own numbers.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/note/limits.js";

/** Every tracked text file, by fixed folders (no git here: this runs in workerd too). */
const files = import.meta.glob(
  [
    "../../README.md",
    "../../docs/*.md",
    "../../src/**/*.{ts,tsx,css}",
    "../../test/**/*.ts",
    "../../sim/**/*.{ts,mjs}",
    "../../scripts/**/*.{ts,mjs,sh}",
    "../../bench/**/*.ts",
    "../../dev/local.env",
    "../../.ci/run",
    "../../.gitignore",
    "../../package.json",
    "../../tsconfig*.json",
    "../../wrangler.toml",
    "../../vitest*.ts",
  ],
  { query: "?raw", import: "default", eager: true },
) as Record<string, string>;

/** A file's path in the repository: the glob names files under test/ relative to this folder. */
const named = (key: string) => new URL(key, "file:///repo/test/unit/").pathname.replace(/^\/repo\//, "");
const byName = new Map(Object.entries(files).map(([key, text]) => [named(key), text]));
const spec = byName.get("docs/spec.md") ?? "";

/**
 * What points outside the repository: the old product document's name and section marks,
 * its usual phrases, its folder. Spelled in pieces so that this file does not match itself.
 */
const OUTSIDE = [
  new RegExp(["\\bS", "PEC\\b"].join(""), "g"),
  new RegExp(["\\bspec\\s*", "§"].join(""), "gi"),
  new RegExp(["\\bthe\\s+sp", "ec\\b"].join(""), "gi"),
  new RegExp(["\\b(?:the|product)\\s+br", "ief\\b"].join(""), "gi"),
  new RegExp(["(?<![\\w./@-])(?:\\.\\./)*sha", "red/"].join(""), "g"),
];

/** `file:line` of a place in a file's text. */
const at = (file: string, text: string, index: number) => `${named(file)}:${text.slice(0, index).split("\n").length}`;

/** `file:line: text` for each match of `pattern` in `text`. */
function where(file: string, text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => `${at(file, text, m.index)}: ${m[0].replace(/\s+/g, " ")}`);
}

describe("the specification is in the repository", () => {
  it("reads the tracked files it means to (a glob that finds nothing would prove nothing)", () => {
    expect(Object.keys(files).length).toBeGreaterThan(200);
    for (const file of ["README.md", "docs/spec.md", "docs/decisions.md", "src/note/limits.ts", ".ci/run", "dev/local.env", "sim/main.ts", "wrangler.toml"]) {
      expect(byName.get(file), file).toEqual(expect.any(String));
    }
  });

  it("no file cites a specification outside the repository", () => {
    // One line per place, however many patterns it matches.
    const found = new Map(Object.entries(files).flatMap(([file, text]) => OUTSIDE.flatMap((pattern) => where(file, text, pattern))).map((hit) => [hit.replace(/: .*$/, ""), hit]));
    expect([...found.values()].sort()).toEqual([]);
  });

  it("every section a file cites as docs/spec.md §n is a section of docs/spec.md", () => {
    const sections = new Set([...spec.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]));
    expect([...sections]).toEqual(expect.arrayContaining(["1", "2", "3", "4", "5", "6", "7", "8", "9", "9.1", "9.4"]));
    const cited = Object.entries(files).flatMap(([file, text]) =>
      [...text.matchAll(/spec\.md\s*(§\d+(?:\.\d+)?(?:\s*(?:,|–|-|and)\s*§\d+(?:\.\d+)?)*)/g)].flatMap((m) =>
        [...(m[1] as string).matchAll(/§(\d+(?:\.\d+)?)/g)].map((n) => ({ at: at(file, text, m.index), section: n[1] as string })),
      ),
    );
    expect(cited.filter((c) => !sections.has(c.section))).toEqual([]);
  });

  it("every link into docs/spec.md names one of its headings", () => {
    // GitHub's anchors: lower case, punctuation dropped, spaces as hyphens.
    const anchors = new Set([...spec.matchAll(/^#{1,6} (.+)$/gm)].map((m) => (m[1] as string).toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replace(/ /g, "-")));
    expect(anchors).toContain("7-the-persons-side");
    const links = Object.entries(files).flatMap(([file, text]) =>
      [...text.matchAll(/\]\((?:\.\.\/)*(?:docs\/)?spec\.md#([^)\s]+)\)/g)].map((m) => ({ at: at(file, text, m.index), anchor: m[1] as string })),
    );
    expect(links.filter((link) => !anchors.has(link.anchor))).toEqual([]);
  });

  it("the limits docs/spec.md §4.3 states are LIMITS' own numbers, every one of them", () => {
    const stated = new Map([...spec.matchAll(/^\| `(\w+)` \| ([\d,]+) \|/gm)].map((m) => [m[1] as string, Number((m[2] as string).replaceAll(",", ""))]));
    expect(Object.fromEntries(stated)).toEqual({ ...LIMITS });
  });

  it("the README links it", () => {
    expect(byName.get("README.md")).toContain("(docs/spec.md)");
  });
});
