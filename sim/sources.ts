/**
 * Experiment 4 (docs/spec.md §9): what the idempotency key of a citation should name,
 * and what the server's URL dedupe (docs/spec.md §5) adds. Research sessions cite
 * the same pages again under other spellings while answers get lost.
 */
import { parseSourceUrl } from "../src/note/attachments/url.js";
import { hashHex } from "./hash.js";
import { stream } from "./random.js";
import { agent, expectOk, noteIdFor, setUpNote, type Script, type Source, type Step, type Reply, type Unit } from "./script.js";
import { scaled, seedOf, type Settings } from "./settings.js";
import { count, decimal, markdownTable } from "./table.js";
import type { Section } from "./report.js";

export const SOURCE_KEY_POLICIES = ["fresh-uuid", "url-as-written", "note-and-normalized-url"] as const;
export type SourceKeyPolicy = (typeof SOURCE_KEY_POLICIES)[number];
export const DEDUPE = ["off", "on"] as const;
export type Dedupe = (typeof DEDUPE)[number];

/** The eight pages of every session (each session is its own Note). */
export const PAGES = [
  "https://example.org/report",
  "https://news.example.com/2026/03/rates",
  "https://data.example.net/series/cpi",
  "https://blog.example.io/posts/latency",
  "https://docs.example.dev/guide/install",
  "https://en.example.wiki/wiki/Solar_power",
  "https://papers.example.edu/abs/2403.01234",
  "https://stats.example.gov/tables/population",
] as const;

/**
 * The seven spellings of a page (as is, trailing slash, www., utm_source,
 * fragment, http://, no scheme), for a page written `https://host/path`.
 *
 * @example
 * spell("https://example.org/report", 2); // "https://www.example.org/report"
 */
export function spell(page: string, spelling: number): string {
  const rest = page.replace(/^https:\/\//, "");
  switch (spelling) {
    case 0:
      return page;
    case 1:
      return `${page}/`;
    case 2:
      return `https://www.${rest}`;
    case 3:
      return `${page}?utm_source=newsletter`;
    case 4:
      return `${page}#fragment`;
    case 5:
      return `http://${rest}`;
    case 6:
      return rest;
    default:
      throw new RangeError(`spelling ${spelling}: there are seven, 0..6`);
  }
}
export const SPELLINGS = 7;

/** Every page's seven spellings, spelled once. */
const SPELLED: readonly (readonly string[])[] = PAGES.map((page) => Array.from({ length: SPELLINGS }, (_, k) => spell(page, k)));
const PAGE_INDEXES: readonly number[] = PAGES.map((_, i) => i);

export interface SourcesConfig {
  seed: number;
  sessions: number;
  turns: number;
  citationsPerTurn: number;
  lossProbability: number;
}

export function sourcesConfig(settings: Settings): SourcesConfig {
  return { seed: seedOf(settings), sessions: scaled(300, settings), turns: 3, citationsPerTurn: 6, lossProbability: 0.2 };
}

/** One session's figures. */
export interface SessionFigures {
  policy: SourceKeyPolicy;
  dedupe: Dedupe;
  session: number;
  citations: number;
  add_calls: number;
  list_calls: number;
  lost_responses: number;
  conflicts_seen: number;
  /** Distinct pages the session cited. */
  pages_cited: number;
  /** Sources in the Note at the end, read back with list_note_attachments. */
  stored: number;
  /** Stored sources naming a page stored before. */
  duplicates: number;
  /** Of those, the ones whose URL as written has the same `new URL(…).href` as an earlier stored copy's. */
  caught_by_href: number;
}

/**
 * The units of experiment 4: one per policy and session, each run on this
 * server (URL dedupe on). Each returns both rows' figures: dedupe on, as the
 * server answered, and dedupe off, counted from the same answers.
 */
export function sourcesUnits(config: SourcesConfig): Unit<SessionFigures[]>[] {
  const units: Unit<SessionFigures[]>[] = [];
  for (const policy of SOURCE_KEY_POLICIES) {
    for (let session = 0; session < config.sessions; session++) {
      units.push({ script: (tag) => researchSession(config, policy, session, tag) });
    }
  }
  return units;
}

/**
 * One research session in its own Note: the agent lists the tabs once, then
 * in each of three turns cites six of the eight pages, each spelled one of
 * seven ways, each with the version from its latest answer. A lost answer is
 * resent unchanged (same key, same version). On a version conflict (after a
 * replayed answer, which carries the version of its first commit) it re-reads
 * with list_note_tabs and resends with the same key and the new version.
 *
 * A connector without URL dedupe is counted from the same answers: each
 * `already_attached: true` to a key it has not stored under is a copy such a
 * connector would have stored (and kept under that key, so a later call with
 * the key is its replay). Its row's calls and conflicts are this server's.
 */
function* researchSession(config: SourcesConfig, policy: SourceKeyPolicy, session: number, tag: string): Script<SessionFigures[]> {
  const noteId = noteIdFor(4, tag, `${policy}-${session}`);
  yield* setUpNote(noteId, `Experiment 4: session ${session}`);
  const figures: SessionFigures = {
    policy,
    dedupe: "on",
    session,
    citations: 0,
    add_calls: 0,
    list_calls: 1,
    lost_responses: 0,
    conflicts_seen: 0,
    pages_cited: 0,
    stored: 0,
    duplicates: 0,
    caught_by_href: 0,
  };
  // The session's citations: the same in every policy and mode.
  const choices = stream(config.seed, 4, session, 0);
  const cited = new Set<number>();
  /** What the server committed, in order: the harness sees every answer, lost ones too. */
  const committed = new Map<string, string>();
  /** What a connector without URL dedupe would have stored, in order (URLs as written), and the keys of the copies only it stores. */
  const storedWithoutDedupe: string[] = [];
  const keysWithoutDedupe = new Set<string>();

  let version = expectOk(yield* agent("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
  for (let turn = 0; turn < config.turns; turn++) {
    const pages = choices.sample(PAGE_INDEXES, config.citationsPerTurn);
    for (let c = 0; c < pages.length; c++) {
      const page = pages[c] as number;
      const url = (SPELLED[page] as readonly string[])[choices.int(SPELLINGS)] as string;
      cited.add(page);
      figures.citations += 1;
      const citation = turn * config.citationsPerTurn + c;
      const losses = stream(config.seed, 4, session, 1, citation);
      const key = citationKey(policy, noteId, url, () => stream(config.seed, 4, session, 2, citation).uuid());
      for (let sends = 0; ; sends++) {
        if (sends > 1000) throw new Error(`citation ${citation} did not settle in 1,000 sends`);
        const answer = yield* agent("add_note_source", {
          note_id: noteId,
          expected_version: version,
          idempotency_key: key,
          title: `Page ${page + 1}`,
          url,
        });
        figures.add_calls += 1;
        if (answer.ok && !answer.value.replayed) {
          if (!answer.value.already_attached) {
            committed.set(answer.value.source_id, url);
            storedWithoutDedupe.push(url);
          } else if (!keysWithoutDedupe.has(key)) {
            keysWithoutDedupe.add(key);
            storedWithoutDedupe.push(url);
          }
        }
        if (losses.chance(config.lossProbability)) {
          figures.lost_responses += 1;
          continue;
        }
        if (answer.ok) {
          version = answer.value.version;
          break;
        }
        if (answer.error.code !== "version_conflict") throw new Error(`add_note_source: unexpected ${answer.error.code}: ${answer.error.message}`);
        figures.conflicts_seen += 1;
        version = expectOk(yield* agent("list_note_tabs", { note_id: noteId }), "list_note_tabs").version;
        figures.list_calls += 1;
      }
    }
  }
  figures.pages_cited = cited.size;

  // Measured, not part of the agent's calls: the Sources tab as the server keeps it.
  const stored = yield* listSources(noteId);
  const written = stored.map((source) => {
    const url = committed.get(source.id);
    if (url === undefined) throw new Error(`source ${source.id} was committed by no answer the harness saw`);
    return url;
  });
  return [{ ...figures, dedupe: "off", ...duplicatesOf(storedWithoutDedupe) }, { ...figures, ...duplicatesOf(written) }];
}

/**
 * The stored copies of a session's pages, as URLs as written in the order
 * stored: how many, how many name a page stored before (its normalized URL),
 * and how many of those a browser-style comparison (`new URL(…).href` against
 * an earlier copy's) would have caught.
 */
function duplicatesOf(written: readonly string[]): Pick<SessionFigures, "stored" | "duplicates" | "caught_by_href"> {
  const counts = { stored: written.length, duplicates: 0, caught_by_href: 0 };
  /** Per page: what a browser-style comparison sees of each stored copy's URL as written. */
  const seen = new Map<string, (string | null)[]>();
  for (const url of written) {
    const page = normalizedUrl(url);
    const href = browserHref(url);
    const earlier = seen.get(page);
    if (earlier === undefined) {
      seen.set(page, [href]);
      continue;
    }
    counts.duplicates += 1;
    if (href !== null && earlier.includes(href)) counts.caught_by_href += 1;
    earlier.push(href);
  }
  return counts;
}

/** The idempotency key a policy gives a citation. */
export function citationKey(policy: SourceKeyPolicy, noteId: string, url: string, uuid: () => string): string {
  switch (policy) {
    case "fresh-uuid":
      return uuid();
    case "url-as-written":
      return `cite-${hashHex(url)}`;
    case "note-and-normalized-url":
      return `cite-${hashHex(`${noteId} ${normalizedUrl(url)}`)}`;
  }
}

// The sessions write 56 distinct URLs (8 pages × 7 spellings) many thousand times: parse each once.
const normalizedCache = new Map<string, string>();
const hrefCache = new Map<string, string | null>();

/** parseSourceUrl's normalized form (the domain's rule, docs/spec.md §5). */
export function normalizedUrl(url: string): string {
  let normalized = normalizedCache.get(url);
  if (normalized === undefined) {
    const parsed = parseSourceUrl(url);
    if (!parsed.ok) throw new Error(`not a citable URL: ${url}: ${parsed.reason}`);
    normalized = parsed.normalized;
    normalizedCache.set(url, normalized);
  }
  return normalized;
}

/** What a browser-style comparison sees: `new URL(written).href`, or nothing for a URL it cannot parse (no scheme). */
export function browserHref(written: string): string | null {
  let href = hrefCache.get(written);
  if (href === undefined) {
    try {
      href = new URL(written).href;
    } catch {
      href = null;
    }
    hrefCache.set(written, href);
  }
  return href;
}

/** Every source of the Note, page by page (limit 50). */
function* listSources(noteId: string): Generator<Step, { id: string; url: string }[], Reply> {
  const items: { id: string; url: string }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = expectOk(
      yield* agent("list_note_attachments", cursor === undefined ? { note_id: noteId, kind: "sources", limit: 50 } : { note_id: noteId, kind: "sources", limit: 50, cursor }),
      "list_note_attachments",
    );
    for (const item of page.items) if ("url" in item) items.push({ id: item.id, url: item.url });
    if (page.next_cursor === null) return items;
    cursor = page.next_cursor;
  }
}

export interface SourcesRow {
  policy: SourceKeyPolicy;
  dedupe: Dedupe;
  source: Source;
  sessions: number;
  citations: number;
  calls_sent: number;
  conflicts_seen: number;
  pages_cited: number;
  stored: number;
  duplicates: number;
  duplicates_per_session: number;
  caught_by_href: number;
}

export interface SourcesResult {
  config: SourcesConfig;
  rows: SourcesRow[];
}

export function sourcesResult(config: SourcesConfig, runs: readonly { figures: SessionFigures[]; source: Source }[]): SourcesResult {
  const sessions = runs.flatMap((run) => run.figures.map((figures) => ({ figures, source: run.source })));
  const rows: SourcesRow[] = [];
  for (const policy of SOURCE_KEY_POLICIES) {
    for (const dedupe of DEDUPE) {
      const mine = sessions.filter((s) => s.figures.policy === policy && s.figures.dedupe === dedupe).map((s) => s.figures);
      const total = (pick: (f: SessionFigures) => number): number => mine.reduce((a, f) => a + pick(f), 0);
      const duplicates = total((f) => f.duplicates);
      rows.push({
        policy,
        dedupe,
        source: sessions.find((s) => s.figures.policy === policy && s.figures.dedupe === dedupe)?.source ?? "in process",
        sessions: mine.length,
        citations: total((f) => f.citations),
        calls_sent: total((f) => f.add_calls + f.list_calls),
        conflicts_seen: total((f) => f.conflicts_seen),
        pages_cited: total((f) => f.pages_cited),
        stored: total((f) => f.stored),
        duplicates,
        duplicates_per_session: mine.length === 0 ? 0 : duplicates / mine.length,
        caught_by_href: total((f) => f.caught_by_href),
      });
    }
  }
  return { config, rows };
}

const POLICY_NAMES: Record<SourceKeyPolicy, string> = {
  "fresh-uuid": "fresh UUID per citation",
  "url-as-written": "hash of the URL as written",
  "note-and-normalized-url": "hash of Note ID + normalized URL",
};

export function sourcesSection(result: SourcesResult): Section {
  const { config } = result;
  const marks = result.rows.some((r) => r.source !== "in process");
  return {
    key: "source_keys",
    heading: `### 4. Source keys: ${count(config.sessions)} sessions × ${config.turns} turns × ${config.citationsPerTurn} citations of 8 pages, ${config.lossProbability * 100}% of answers lost, seed ${config.seed}`,
    tables: [
      markdownTable({
        head: [
          "key policy",
          "URL dedupe",
          ...(marks ? ["ran"] : []),
          "citations",
          "calls sent",
          "version conflicts",
          "pages cited",
          "stored sources",
          "duplicates",
          "duplicates per session",
          "caught by new URL()",
        ],
        rows: result.rows.map((r) => [
          POLICY_NAMES[r.policy],
          r.dedupe === "on" ? "on (this server)" : "off (counterfactual)",
          ...(marks ? [r.source] : []),
          count(r.citations),
          count(r.calls_sent),
          count(r.conflicts_seen),
          count(r.pages_cited),
          count(r.stored),
          count(r.duplicates),
          decimal(r.duplicates_per_session, 2),
          count(r.caught_by_href),
        ]),
        align: ["left", "left", ...(marks ? ["left" as const] : [])],
      }),
    ],
    note:
      "A key that names \"this URL in this Note\" (the normalized URL) stores each page once even with no dedupe on the server; a random UUID or the URL as written store a page again under each new spelling, " +
      "and a browser-style new URL() comparison would have caught few of those duplicates; with the server's URL dedupe on, no policy stores a duplicate. " +
      `Model: each session is its own Note; in each of ${config.turns} turns the agent cites ${config.citationsPerTurn} of the 8 pages (a uniformly random subset), each spelled one of the seven ways ` +
      "(as is, trailing slash, www., ?utm_source=newsletter, #fragment, http://, no scheme; uniformly); the UUID is reused on a resend and drawn from the seed; " +
      "hashes are a 64-bit string hash of the URL as written, or of the Note ID and parseSourceUrl's normalized URL. " +
      `Each answer is lost with probability ${config.lossProbability} and the call resent unchanged (same key, same expected_version). ` +
      "expected_version comes from the client's latest answer; a replayed answer carries its first commit's version, so the next citation may meet a version conflict: the client then re-reads with list_note_tabs and resends with the same key and the new version (counted in calls). " +
      "Stored sources are read back with list_note_attachments; a duplicate is a stored source whose page (normalized URL) was stored before; " +
      "\"caught by new URL()\" counts duplicates whose URL as written has the same href as an earlier stored copy's (a URL without a scheme does not parse and is never caught). The citations are the same in every row. " +
      "Dedupe off is counted from the same sessions' answers: every already_attached: true to a key not stored under before is a copy a connector without URL dedupe would have stored (and replayed under that key later); its calls and conflicts are this server's.",
  };
}
