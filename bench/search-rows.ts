/**
 * The search rows (issue 26): the MCP `search` tool for one word, several
 * words, and a word no Note holds, by the agent of a user with 1,000 Notes
 * against the agent of a user with 10, the same hits for both (the same ten
 * Notes hold the words; the others are filler documents without them), each
 * pair measured in turn like the headline ratios. And what a search costs the
 * user's directory object in rows read (its SQLite counters, GET
 * /bench/directory-stats), which must not follow the number of Notes. Last,
 * what feeding the members' directories costs a write: slide_update on decks
 * of 5 members against decks of 1, in turn.
 */
import { orThrow, PersonApi } from "../scripts/lib/person-api.js";
import { pool } from "../scripts/lib/pool.js";
import { signIn } from "../scripts/lib/sign-in.js";
import { directoryStats } from "./bench-routes.js";
import { MCP_PATH, mcpHeaders, toolCallBody } from "./mcp-call.js";
import { compare, type Comparison } from "./measure.js";
import type { BenchOptions } from "./options.js";
import { fillerDocument } from "./search-quality/corpus.js";
import type { BenchServer } from "./server.js";
import { slideUpdateMembers, type Workload } from "./workloads.js";

/** The queries, and the words the filler must not hold (so that both users have the same hits). */
export const SEARCH_QUERIES = [
  { id: "word", name: "one word", query: "kestrel" },
  { id: "phrase", name: "four words", query: "harbour crane maintenance schedule" },
  { id: "miss", name: "a word no Note holds", query: "zanzibarite" },
] as const;
const SECTION = "## Kestrel yard\n\nThe kestrel team owns the harbour crane maintenance schedule for the east quay.\n";

/** Members of the decks the index upkeep comparison writes to (against decks of one member). */
export const UPKEEP_MEMBERS = 5;

export interface SearchCost {
  id: string;
  name: string;
  user: string;
  notes: number;
  calls: number;
  /** Hits the search answered (the same for both users). */
  hits: number;
  directoryRowsReadPerCall: number;
}

export interface SearchBench {
  /** Why the rows were not measured (the connector has no search tool), or null. */
  skipped: string | null;
  /** Notes of the small user and of the large one, and how many of them hold the words. */
  notes: [number, number];
  holders: number;
  comparisons: Comparison[];
  costs: SearchCost[];
  /** slide_update on decks of 5 members against decks of 1, in turn: what feeding each member's directory costs a write. */
  upkeep: Comparison | null;
}

interface SearchUser {
  user: string;
  notes: number;
  agentToken: string;
}

async function setUpUser(origin: string, notes: number, holders: number, seed: number): Promise<SearchUser> {
  const user = `searcher${notes}`;
  const app = await signIn({ origin, user, scopes: ["osfoundry:app"], resource: "api" });
  const agent = await signIn({ origin, user, scopes: ["osfoundry:read"], resource: "mcp" });
  const api = new PersonApi({ origin, token: app.access_token, timeoutMs: 60_000 });
  const words = SEARCH_QUERIES.flatMap((q) => q.query.split(" "));
  await pool(
    Array.from({ length: notes }, (_, i) => i),
    8,
    async (i) => {
      const filler = fillerDocument(seed, i);
      const lower = `${filler.title} ${filler.markdown}`.toLowerCase();
      const found = words.find((w) => new RegExp(`\\b${w}\\b`).test(lower));
      if (found !== undefined) throw new Error(`the filler document ${i} holds "${found}": the two users would not have the same hits`);
      const noteId = `search-${notes}-${String(i).padStart(4, "0")}`;
      orThrow(await api.createNote({ note_id: noteId, title: filler.title, markdown: i < holders ? `${filler.markdown}\n${SECTION}` : filler.markdown }), `create ${noteId}`);
      orThrow(await api.setApproval(noteId, { approved: true }), `approve ${noteId}`);
    },
  );
  return { user, notes, agentToken: agent.access_token };
}

/** One search call's hits (throws on any refusal). */
async function searchHits(origin: string, agentToken: string, query: string): Promise<number> {
  const response = await fetch(`${origin}${MCP_PATH}`, { method: "POST", headers: mcpHeaders(agentToken), body: toolCallBody("search", { query }), signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  const parsed = JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: { hits?: unknown[] } } };
  const hits = parsed.result?.structuredContent?.hits;
  if (response.status !== 200 || parsed.result?.isError === true || !Array.isArray(hits)) throw new Error(`search "${query}" answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  return hits.length;
}

async function hasSearchTool(origin: string, agentToken: string): Promise<boolean> {
  const response = await fetch(`${origin}${MCP_PATH}`, { method: "POST", headers: mcpHeaders(agentToken), body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
  const listed = (await response.json()) as { result?: { tools?: { name: string }[] } };
  return (listed.result?.tools ?? []).some((t) => t.name === "search");
}

function searchWorkload(origin: string, u: SearchUser, q: (typeof SEARCH_QUERIES)[number]): Workload {
  const headers = mcpHeaders(u.agentToken);
  return {
    id: `search_${q.id}_${u.notes}_notes`,
    name: `search, ${q.name} ("${q.query}")`,
    section: "tools",
    connections: 0,
    notes: `${u.notes}`,
    requests: () => [{ method: "POST", path: MCP_PATH, headers, body: toolCallBody("search", { query: q.query }) }],
    accept: (body) => body.startsWith("{") && !body.includes('"isError":true') && !body.includes('"error":{"code":-3'),
  };
}

export async function measureSearch(server: BenchServer, options: BenchOptions): Promise<SearchBench> {
  const { log, signal } = options;
  const [small, large] = options.searchNotes;
  const holders = Math.min(10, small);
  const empty: SearchBench = { skipped: null, notes: [small, large], holders, comparisons: [], costs: [], upkeep: null };
  if (!(await hasSearchTool(server.origin, server.agentToken))) return { ...empty, skipped: "the connector lists no search tool" };
  const refused = await searchHits(server.origin, server.agentToken, SEARCH_QUERIES[0].query).then(
    () => null,
    (error: unknown) => String(error instanceof Error ? error.message : error),
  );
  if (refused !== null) return { ...empty, skipped: `the search tool refused a search across Notes (${refused.slice(0, 200)})` };
  log(`[bench] search: a user with ${small} Notes and one with ${large}, ${holders} of each holding the words …`);
  const users: SearchUser[] = [];
  for (const notes of [small, large]) {
    signal?.throwIfAborted();
    users.push(await setUpUser(server.origin, notes, holders, 26));
  }
  // The directories are fed after each write commits: wait until both find every holder.
  const until = Date.now() + 120_000;
  for (const u of users) {
    for (;;) {
      signal?.throwIfAborted();
      const hits = await searchHits(server.origin, u.agentToken, SEARCH_QUERIES[0].query);
      if (hits >= holders) break;
      if (Date.now() > until) throw new Error(`${u.user}'s search finds ${hits} of the ${holders} Notes holding "${SEARCH_QUERIES[0].query}" two minutes after they were written`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const result: SearchBench = { ...empty };
  for (const q of SEARCH_QUERIES) {
    for (const u of users) {
      const before = await directoryStats(server.origin, u.user);
      const calls = options.costCalls;
      let hits = 0;
      for (let i = 0; i < calls; i++) hits = await searchHits(server.origin, u.agentToken, q.query);
      const after = await directoryStats(server.origin, u.user);
      result.costs.push({ id: `search_${q.id}_${u.notes}`, name: `search, ${q.name}`, user: u.user, notes: u.notes, calls, hits, directoryRowsReadPerCall: Math.round(((after.rows_read - before.rows_read) / calls) * 100) / 100 });
    }
  }
  const [a, b] = users as [SearchUser, SearchUser];
  for (const q of SEARCH_QUERIES) {
    signal?.throwIfAborted();
    result.comparisons.push(await compare(server, `search_${q.id}_${large}_vs_${small}_notes`, searchWorkload(server.origin, a, q), searchWorkload(server.origin, b, q), options, () => 0));
  }
  log(`[bench] search: slide_update on decks of ${UPKEEP_MEMBERS} members against decks of 1 …`);
  const ctx = { origin: server.origin, agentToken: server.agentToken, api: server.api, connections: options.connections };
  result.upkeep = await compare(server, `slide_update_${UPKEEP_MEMBERS}_members_vs_1`, slideUpdateMembers(ctx, 1), slideUpdateMembers(ctx, UPKEEP_MEMBERS), options, () => 100);
  return result;
}
