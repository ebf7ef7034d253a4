/** Routes an operation to its Note's Durable Object, and `list_notes` to the user's directory. */
import type { Env } from "../env.js";
import type { NoteGateway } from "../mcp/server.js";

export function durableGateway(env: Env): NoteGateway {
  return {
    execute(noteId, caller, name, input) {
      return env.NOTES.get(env.NOTES.idFromName(noteId)).execute(noteId, caller, name, input);
    },
    async listNotes(user) {
      const entries = await env.DIRECTORY.get(env.DIRECTORY.idFromName(user)).list();
      return { notes: entries.filter((e) => e.approved).map((e) => ({ note_id: e.note_id, title: e.title })) };
    },
  };
}
