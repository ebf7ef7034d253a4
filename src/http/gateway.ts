/** Routes an operation to its Note's Durable Object, and `list_notes` to the user's directory. */
import type { Env } from "../env.js";
import type { NoteGateway, NoteQuery } from "../mcp/server.js";
import { decodeNotesCursor, encodeNotesCursor, invalidArguments, LIMITS, fail, ok, type CommandName, type Result } from "../note/index.js";
import type { FetchedItem, SearchPage } from "../note/search/contract.js";
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
    // Provisional until the directory's cross-Note search lands: within one Note only.
    async search(caller, query) {
      if (query.note_id === undefined) return fail(invalidArguments([{ path: "note_id", problem: "required for now: search within one Note" }]));
      const { note_id, ...input } = query;
      const page = (await env.NOTES.get(env.NOTES.idFromName(note_id)).execute(note_id, caller, "search" as CommandName, input as never)) as Result<SearchPage>;
      return page.ok ? ok({ hits: page.value.hits, next_cursor: page.value.next_cursor }) : page;
    },
    // A hit's ID starts with its Note's: that Note reads the item, checking the caller may use it (a Note's IDs never hold '/').
    async fetch(caller, id) {
      const noteId = id.split("/")[0] as string;
      return (await env.NOTES.get(env.NOTES.idFromName(noteId)).execute(noteId, caller, "fetch_item" as CommandName, { id } as never)) as Result<FetchedItem>;
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
