/**
 * One search-quality run: the bench's server (bench/server.ts: the Worker
 * bundled as a deployment would be, on Miniflare on a free loopback port, a
 * throwaway storage folder, alice signed in as a person and as an agent), the
 * corpus loaded, then every labelled query through the MCP `search` tool with
 * limit 5, repeated until two runs in a row answer the same (the cross-Note
 * index is fed after each write commits), scored.
 */
import { pool } from "../../scripts/lib/pool.js";
import { isMcpError, MCP_PATH, mcpHeaders, toolCallBody } from "../mcp-call.js";
import { bundleWorker, startBenchServer } from "../server.js";
import { generateCorpus, type Corpus } from "./corpus.js";
import { loadCorpus } from "./load.js";
import { figures, rankOf, type Expected, type Hit, type QualityReport, type QueryResult } from "./score.js";
import { LANGS, type Lang, type LabelledQuery, type QueryType } from "./types.js";

export const SEARCH_LIMIT = 5;

export interface QualityOptions {
  seed?: number;
  /**
   * Each query within its expected Note only (`note_id` given): the Note's own
   * index and ranking among its items, not the figure (which searches
   * across all the user's Notes). A check of the machinery, and of the Note's side.
   */
  withinNote?: boolean;
  /** Longest wait for the cross-Note index to settle, in seconds. */
  settleMaxSec?: number;
  log: (line: string) => void;
  signal?: AbortSignal;
}

/** One `search` call: its hits, or the tool's refusal. Throws if the connector has no such tool. */
export async function search(origin: string, agentToken: string, query: string, limit = SEARCH_LIMIT, noteId?: string): Promise<{ hits: Hit[]; error: string | null }> {
  const args = { query, limit, ...(noteId === undefined ? {} : { note_id: noteId }) };
  const response = await fetch(`${origin}${MCP_PATH}`, { method: "POST", headers: mcpHeaders(agentToken), body: toolCallBody("search", args), signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`search answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  const parsed = JSON.parse(text) as { result?: { structuredContent?: { hits?: Hit[] }; content?: { text?: string }[] }; error?: { message?: string } };
  if (parsed.error !== undefined || isMcpError(text)) {
    const message = parsed.error?.message ?? parsed.result?.content?.[0]?.text ?? text.slice(0, 300);
    if (/tool.*(not found|unknown)|unknown tool|not found.*search/i.test(message)) throw new Error(`the connector has no \`search\` tool yet (${message.slice(0, 200)})`);
    return { hits: [], error: message.slice(0, 300) };
  }
  const hits = parsed.result?.structuredContent?.hits;
  if (!Array.isArray(hits)) throw new Error(`search answered without structuredContent.hits: ${text.slice(0, 300)}`);
  return { hits, error: null };
}

/** Fails at once, before the corpus is loaded, when the connector lists no `search` tool. */
async function requireSearchTool(origin: string, agentToken: string): Promise<void> {
  const response = await fetch(`${origin}${MCP_PATH}`, { method: "POST", headers: mcpHeaders(agentToken), body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
  const listed = (await response.json()) as { result?: { tools?: { name: string }[] } };
  if (!(listed.result?.tools ?? []).some((t) => t.name === "search")) throw new Error("the connector has no `search` tool yet (tools/list does not list it)");
}

async function runQueries(origin: string, agentToken: string, corpus: Corpus, expected: Map<string, Expected>, withinNote: boolean): Promise<QueryResult[]> {
  return pool(corpus.queries, 4, async (query) => {
    const want = expected.get(query.expect) as Expected;
    const { hits, error } = await search(origin, agentToken, query.query, SEARCH_LIMIT, withinNote ? want.note_id : undefined);
    return { query, expected: want, hits, rank: rankOf(hits, want), error };
  });
}

const signature = (results: readonly QueryResult[]): string => JSON.stringify(results.map((r) => [r.error, r.hits.map((h) => h.id)]));

function group<K extends string>(results: readonly QueryResult[], key: (q: LabelledQuery) => K, keys: readonly K[]): Record<K, ReturnType<typeof figures>> {
  const out = {} as Record<K, ReturnType<typeof figures>>;
  for (const k of keys) {
    const some = results.filter((r) => key(r.query) === k);
    if (some.length > 0) out[k] = figures(some);
  }
  return out;
}

export async function runQuality(options: QualityOptions): Promise<QualityReport> {
  const { log, signal } = options;
  const withinNote = options.withinNote === true;
  const corpus = generateCorpus(options.seed);
  log(`[search:quality] corpus: ${corpus.notes.length} Notes, ${corpus.queries.length} labelled queries; bundling the Worker …`);
  const bundle = await bundleWorker(signal);
  try {
    const server = await startBenchServer(bundle, { signal });
    try {
      await requireSearchTool(server.origin, server.agentToken);
      const started = Date.now();
      const expected = await loadCorpus(server.origin, server.agentToken, server.api, corpus, log, signal);
      const loaded = Date.now();
      log(`[search:quality] loaded in ${((loaded - started) / 1000).toFixed(1)} s; querying until two runs in a row agree …`);
      let results = await runQueries(server.origin, server.agentToken, corpus, expected, withinNote);
      let settledAt = Date.now();
      const deadline = loaded + (options.settleMaxSec ?? 60) * 1000;
      for (;;) {
        signal?.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const again = await runQueries(server.origin, server.agentToken, corpus, expected, withinNote);
        if (signature(again) === signature(results)) break;
        results = again;
        settledAt = Date.now();
        if (Date.now() > deadline) {
          log("[search:quality] the answers still change; scoring the last run");
          break;
        }
      }
      const items = { slides: 0, rows: 0, sections: 0, sources: 0 };
      for (const note of corpus.notes) {
        items.sections += note.sections.length;
        items.sources += note.sources.length;
        for (const tab of note.tabs) if (tab.type === "slides") items.slides += tab.slides.length;
        else items.rows += tab.rows.length;
      }
      const types: QueryType[] = ["keyword", "phrase", "question", "title", "no-accents", "inside-word", "mixed-script"];
      return {
        seed: corpus.seed,
        withinNote,
        notes: corpus.notes.length,
        items,
        loadSeconds: Math.round((loaded - started) / 100) / 10,
        settleSeconds: Math.round((settledAt - loaded) / 100) / 10,
        overall: figures(results),
        byLang: group(results, (q) => q.lang, LANGS) as Record<Lang, ReturnType<typeof figures>>,
        byType: group(results, (q) => q.type, types),
        results,
      };
    } finally {
      await server.close();
    }
  } finally {
    await bundle.remove();
  }
}
