/**
 * Who may use a Note, and through which door (docs/spec.md §8): its members, and
 * agents only once the person approved the Note for connectors. A Note the
 * caller may not see reads exactly like one that does not exist.
 */
import type { Caller, CommandName } from "../commands.js";
import { CONNECTOR_COMMANDS } from "../commands.js";
import type { NoteContext } from "../context.js";
import { invalidArguments, noteNotFound } from "../errors.js";
import { LIMITS } from "../limits.js";
import { fail, ok, type Result } from "../result.js";
import type { NoteMeta } from "../store.js";
import { Checks } from "../validate.js";

/**
 * Whether this caller, through this door, may run this operation at all: a
 * caller is a user through one of the two doors, and connectors reach the
 * MCP tools' operations only. The edge builds callers; this checks them anyway.
 */
export function mayRun(caller: Caller, name: CommandName): Result<null> {
  const checks = new Checks();
  const given = typeof caller === "object" && caller !== null ? (caller as unknown as Record<string, unknown>) : {};
  checks.text("caller.user", given.user, LIMITS.userIdLength, { required: true, nonBlank: true, oneLine: true, trimmed: true });
  checks.oneOf("caller.channel", given.channel, CHANNELS);
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  if (caller.channel === "app" || CONNECTOR_COMMANDS.has(name)) return ok(null);
  return fail(invalidArguments([{ path: "operation", problem: `"${name}" is the person's, in the app; connectors cannot use it` }]));
}

const CHANNELS: readonly Caller["channel"][] = ["app", "connector"];

/** The Note's meta, if this caller may use it through this door. */
export function openNote(ctx: NoteContext, caller: Caller): Result<NoteMeta> {
  const meta = ctx.store.readMeta();
  // A deleted Note is gone for everyone at once, while its object finishes erasing it.
  if (meta === null || meta.deleted || !ctx.store.isMember(caller.user)) return fail(noteNotFound(ctx.id));
  // Only the person's own app reaches a Note its owner has not approved.
  if (caller.channel !== "app" && !meta.approved) {
    return fail({
      code: "note_not_approved",
      message: `Note "${ctx.id}" is not approved for connectors. Ask its owner to approve it in the app.`,
      note_id: ctx.id,
    });
  }
  return ok(meta);
}
