/**
 * Who may use a Note, and through which door (SPEC §8): its members, and
 * agents only once the person approved the Note for connectors. A Note the
 * caller may not see reads exactly like one that does not exist.
 */
import type { Caller, CommandName } from "./commands.js";
import { CONNECTOR_COMMANDS } from "./commands.js";
import type { NoteContext } from "./context.js";
import { invalidArguments, noteNotFound } from "./errors.js";
import { fail, ok, type Result } from "./result.js";
import type { NoteMeta } from "./store.js";

/** Whether this door leads to this operation at all: connectors reach the MCP tools' operations only. */
export function mayRun(caller: Caller, name: CommandName): Result<null> {
  if (caller.channel === "app" || CONNECTOR_COMMANDS.has(name)) return ok(null);
  return fail(invalidArguments([{ path: "operation", problem: `"${name}" is the person's, in the app; connectors cannot use it` }]));
}

/** The Note's meta, if this caller may use it through this door. */
export function openNote(ctx: NoteContext, caller: Caller): Result<NoteMeta> {
  const meta = ctx.store.readMeta();
  if (meta === null || !ctx.store.isMember(caller.user)) return fail(noteNotFound(ctx.id));
  if (caller.channel === "connector" && !meta.approved) {
    return fail({
      code: "note_not_approved",
      message: `Note "${ctx.id}" is not approved for connectors. Ask its owner to approve it in the app.`,
      note_id: ctx.id,
    });
  }
  return ok(meta);
}
