/** Routes an operation to its Note's Durable Object, and `list_notes` and a search across Notes to the user's directory. */
import type { Env } from "../env.js";
import type { NoteGateway, NoteQuery, SearchQuery } from "../mcp/server.js";
import {
  Checks,
  checkSearchLimit,
  checkSearchQuery,
  decodeNotesCursor,
  decodeNotesSearchCursor,
  encodeNotesCursor,
  encodeNotesSearchCursor,
  invalidArguments,
  LIMITS,
  matchExpression,
  fail,
  ok,
  type Caller,
  type CommandName,
  type Input,
  type Output,
  type Result,
  type SearchHit,
  type SearchPage,
} from "../note/index.js";
import type { FetchedItem } from "../note/search/contract.js";
import type { ListedNote } from "../storage/directory-object.js";

export function durableGateway(env: Env): NoteGateway {
  return {
    execute(noteId, caller, name, input) {
      return env.NOTES.get(env.NOTES.idFromName(noteId)).execute(noteId, caller, name, input);
    },
    async listNotes(user, query) {
      const page = await listNotes(env, user, query, true);
      return page.ok ? ok({ notes: page.value.notes.map((n) => ({ note_id: n.note_id, title: n.title })), next_cursor: page.value.next_cursor }) : page;
    },
    search(caller, query) {
      return searchNotes(env, caller, query);
    },
    // A hit's ID starts with its Note's: that Note reads the item, checking the caller may use it (a Note's IDs never hold '/').
    async fetch(caller, id) {
      const noteId = id.split("/")[0] as string;
      // The RPC stub's answer is typed as any command's: this one is fetch_item's.
      return (await env.NOTES.get(env.NOTES.idFromName(noteId)).execute(noteId, caller, "fetch_item", { id })) as Result<Output<"fetch_item">>;
    },
  };
}

/**
 * One page of the user's directory: every Note they are a member of (the
 * person's list), or only the approved ones (a connector's). Arguments are
 * valid by their schema; the cursor is checked here, naming `cursor`.
 */
export async function listNotes(
  env: Env,
  user: string,
  query: NoteQuery,
  approvedOnly: boolean,
): Promise<Result<{ notes: ListedNote[]; next_cursor: string | null }>> {
  const after = query.cursor === undefined ? "" : decodeNotesCursor(user, query.cursor);
  if (after === null) {
    const problem = "not a cursor list_notes issued to you; pass next_cursor exactly as returned, or omit it to start over";
    return fail(invalidArguments([{ path: "cursor", problem }]));
  }
  const limit = query.limit ?? LIMITS.notesPageSize;
  const page = await env.DIRECTORY.get(env.DIRECTORY.idFromName(user)).page({ after, limit, approvedOnly, titleContains: query.title_contains });
  const last = page.notes.at(-1);
  return ok({ notes: page.notes, next_cursor: page.more && last !== undefined ? encodeNotesCursor(user, last.note_id) : null });
}

/**
 * A search (docs/search.md). With `note_id`: that Note's own index, through
 * its `search` command. Without: the user's directory ranks one page over
 * its copy of every member Note's documents (a connector's: approved Notes
 * only); then each Note on the page describes its hits, all at once, one
 * call per Note: it checks access again (a member removed or a Note deleted
 * a moment ago, before the directory learned it, answers nothing) and writes
 * the title and snippet from its content now, leaving out a hit it no longer
 * has. The hits keep the directory's order. The cursor holds the last hit's
 * place in the ranking, sealed to the user and the query's words.
 */
export async function searchNotes(env: Env, caller: Caller, query: SearchQuery): Promise<Result<SearchPage>> {
  const checks = new Checks();
  checkSearchQuery(checks, query.query);
  checkSearchLimit(checks, query.limit);
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const note = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));

  if (query.note_id !== undefined) {
    const input: Input<"search"> = { query: query.query };
    if (query.limit !== undefined) input.limit = query.limit;
    if (query.cursor !== undefined) input.cursor = query.cursor;
    // The stub's RPC type loses the command's own output type: it is the command's.
    const within = (await note(query.note_id).execute(query.note_id, caller, "search", input)) as Result<Output<"search">>;
    return within.ok ? ok({ hits: within.value.hits, next_cursor: within.value.next_cursor }) : within;
  }

  const match = matchExpression(query.query) as string;
  const after = query.cursor === undefined ? undefined : decodeNotesSearchCursor(caller.user, match, query.cursor);
  if (after === null) {
    const problem = "not a cursor search issued to you for this query; pass next_cursor exactly as returned, with the same query, or omit it to start over";
    return fail(invalidArguments([{ path: "cursor", problem }]));
  }
  const limit = query.limit ?? LIMITS.searchPageDefault;
  const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName(caller.user));
  const ranking = { match, approvedOnly: caller.channel === "connector", limit, after };
  let page = await directory.search(ranking);
  if (page.pending !== undefined) {
    // Notes listed before the directory kept a copy: each sends its own once it runs (its migration queued it), so
    // wake a few with a read, which delivers what the Note owes before it answers; then rank.
    await Promise.all(page.pending.map((noteId) => wake(env, caller.user, noteId)));
    page = await directory.search({ ...ranking, skipPending: true });
  }

  const keysByNote = new Map<string, number[]>();
  for (const hit of page.hits) {
    const keys = keysByNote.get(hit.note_id);
    if (keys === undefined) keysByNote.set(hit.note_id, [hit.key]);
    else keys.push(hit.key);
  }
  const described = new Map<string, Map<number, SearchHit>>();
  await Promise.all(
    [...keysByNote].map(async ([noteId, keys]) => {
      let answer: Result<Output<"describe_hits">>;
      try {
        answer = (await note(noteId).execute(noteId, caller, "describe_hits", { keys, query: query.query })) as Result<Output<"describe_hits">>;
      } catch (error) {
        // One Note that cannot answer costs its own hits, not the whole page.
        console.error(`describe_hits on ${noteId} failed; its hits are left out of the page`, error);
        return;
      }
      // Refused (the caller no longer a member, the Note deleted or not approved): none of its hits.
      if (answer.ok) described.set(noteId, new Map(answer.value.hits.map((hit) => [hit.key, withoutKey(hit)])));
    }),
  );
  const hits = page.hits.flatMap((hit) => described.get(hit.note_id)?.get(hit.key) ?? []);
  const last = page.hits.at(-1);
  return ok({ hits, next_cursor: page.more && last !== undefined ? encodeNotesSearchCursor(caller.user, match, { score: last.score, rowid: last.rowid }) : null });
}

/** Runs a read on the Note for its member, for what the call does first: migrate, and deliver what the Note owes. Its answer does not matter. */
async function wake(env: Env, user: string, noteId: string): Promise<void> {
  try {
    await env.NOTES.get(env.NOTES.idFromName(noteId)).execute(noteId, { user, channel: "app" }, "list_tabs", {});
  } catch (error) {
    console.error(`waking ${noteId} for its search copy failed`, error);
  }
}

function withoutKey(hit: SearchHit & { key?: number }): SearchHit {
  const { key: _key, ...rest } = hit;
  return rest;
}
