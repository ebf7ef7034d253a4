/**
 * The Note's change log: one entry for every committed change, written in the
 * change's own transaction, so the log has exactly one entry per version. It
 * says who (the person, or an agent by its OAuth client), what (the
 * operation) and where (the IDs it touched). Agents read it with
 * list_note_changes and in every version_conflict; the person's page follows
 * it live. It keeps the last CHANGES_KEPT entries: each commit drops at most one.
 */
import { openNote } from "./pipeline/access.js";
import type { Caller, ChangePage } from "./commands.js";
import type { NoteContext } from "./context.js";
import { invalidArguments } from "./errors.js";
import { LIMITS } from "./limits.js";
import { fail, ok, type Result } from "./result.js";
import type { ChangeUndo } from "./store.js";
import { indexTouches, markRevertible, type Reverting, type UndoStep } from "./undo.js";
import { Checks, fields } from "./validate.js";

export type Actor = { kind: "person"; user: string } | { kind: "agent"; user: string; client_id: string; client_name: string | null };

/** What a change touched; lists of IDs are capped (ids_omitted counts the rest). */
export interface Touched {
  tab_id?: string;
  slide_ids?: string[];
  row_ids?: string[];
  source_id?: string;
  file_id?: string;
  /** add_member, remove_member: whom. */
  member?: string;
}

export interface ChangeEntry extends Touched {
  /** The version this change committed as. */
  version: number;
  /** When, ISO 8601. */
  at: string;
  actor: Actor;
  /** The Note's name for it: create_tab, slide_update, rename_tab, set_markdown, … */
  operation: string;
  /** How many more slide or row IDs it touched than it lists. */
  ids_omitted?: number;
  /** A revert: the version of the change it took back (undo.ts). */
  reverts?: number;
  /** In a page of the log only: whether it can be taken back now (undo.ts). */
  revertible?: boolean;
}

/** How many entries the log keeps: the newest ones. */
export const CHANGES_KEPT = 1000;
/** The slide or row IDs an entry lists at most: a 500-row append is one entry, not a megabyte. */
export const IDS_PER_CHANGE = 20;
/** The entries a version_conflict carries at most (list_note_changes has the rest). */
export const CONFLICT_CHANGES = 20;

/** The door decides who wrote: a connector's write is an agent's, even one whose caller names no client (it never hides as the person's). */
function actorOf(caller: Caller): Actor {
  if (caller.channel === "app") return { kind: "person", user: caller.user };
  return { kind: "agent", user: caller.user, client_id: caller.client?.id ?? "(unknown)", client_name: caller.client?.name ?? null };
}

/** The log's name for an operation: an edit's own (slide_update, row_move), else the command's. */
export function operationOf(command: string, input: Readonly<Record<string, unknown>>): string {
  if (typeof input.operation === "string") return input.operation;
  // The person's undo and the agent's revert are one operation in the log.
  return command === "undo_change" ? "revert_change" : command;
}

/** What a write's result or a person's change reports it touched. */
export function touchedBy(result: {
  tab_id?: string;
  tab?: { id: string };
  slide_ids?: string[];
  row_ids?: string[];
  source_id?: string;
  file_id?: string;
}): Touched {
  const touched: Touched = {};
  // Sources and files live in their fixed tabs: an entry names the tab every change touched.
  const tab = result.tab_id ?? result.tab?.id ?? (result.source_id !== undefined ? "sources" : result.file_id !== undefined ? "files" : undefined);
  if (tab !== undefined) touched.tab_id = tab;
  // An empty list (columns_add's rows, an empty deck's slides) says nothing.
  if (result.slide_ids !== undefined && result.slide_ids.length > 0) touched.slide_ids = result.slide_ids;
  if (result.row_ids !== undefined && result.row_ids.length > 0) touched.row_ids = result.row_ids;
  if (result.source_id !== undefined) touched.source_id = result.source_id;
  if (result.file_id !== undefined) touched.file_id = result.file_id;
  return touched;
}

const DAY_MS = 86_400_000;
/** The day `isoTime` last formatted: its first millisecond and its "YYYY-MM-DDT". */
let dayStart = Number.NaN;
let dayText = "";

/**
 * `new Date(ms).toISOString()`, without a Date: every commit writes one, and
 * commits come in runs on the same day, so the day's text is kept and only
 * the time of day is formatted.
 */
export function isoTime(time: number): string {
  // A Date keeps whole milliseconds, truncated.
  const ms = Number.isInteger(time) ? time : Math.trunc(time);
  if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
    const text = new Date(ms).toISOString();
    dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
    dayText = text.slice(0, text.indexOf("T") + 1);
  }
  const t = ms - dayStart;
  const h = Math.floor(t / 3_600_000);
  const m = Math.floor(t / 60_000) % 60;
  const sec = Math.floor(t / 1000) % 60;
  const milli = t % 1000;
  return `${dayText}${h < 10 ? "0" : ""}${h}:${m < 10 ? "0" : ""}${m}:${sec < 10 ? "0" : ""}${sec}.${milli < 100 ? (milli < 10 ? "00" : "0") : ""}${milli}Z`;
}

const ID_LISTS = ["slide_ids", "row_ids"] as const;

/** Writes the entry of the change committing as `version`, and drops the one that falls out of the log. */
export function logChange(ctx: NoteContext, caller: Caller, version: number, operation: string, touched: Touched, undo?: { steps: UndoStep[]; reverts?: Reverting | undefined }): void {
  const entry: ChangeEntry = { version, at: isoTime(ctx.now()), actor: actorOf(caller), operation, ...touched };
  if (undo?.reverts !== undefined) entry.reverts = undo.reverts.version;
  let omitted = 0;
  for (const list of ID_LISTS) {
    const ids = touched[list];
    if (ids === undefined || ids.length <= IDS_PER_CHANGE) continue;
    entry[list] = ids.slice(0, IDS_PER_CHANGE);
    omitted += ids.length - IDS_PER_CHANGE;
  }
  if (omitted > 0) entry.ids_omitted = omitted;
  const kept: ChangeUndo | null = undo === undefined ? null : { touch: indexTouches(ctx.store, version, undo.steps, undo.reverts), steps: undo.steps };
  ctx.store.recordChange(entry, kept);
  if (version > CHANGES_KEPT) ctx.store.dropChange(version - CHANGES_KEPT);
}

/**
 * The changes after `expected`, for a version_conflict: at most
 * CONFLICT_CHANGES, oldest first, and whether they are all of them (none
 * pruned from the log, none left out).
 */
export function changesSince(ctx: NoteContext, expected: number, current: number): { changes: ChangeEntry[]; changes_complete: boolean } {
  const changes = ctx.store.changesSince(expected, CONFLICT_CHANGES);
  const complete = changes.length === current - expected && changes[0]?.version === expected + 1;
  return { changes, changes_complete: complete };
}

/** list_note_changes: a page of the log after `since_version`, oldest first. */
export function listChanges(ctx: NoteContext, caller: Caller, input: unknown): Result<ChangePage> {
  const given = fields(input);
  if (!given.ok) return given;
  const checks = new Checks();
  checks.onlyFields(given.value, ["since_version", "limit"]);
  checks.integer("since_version", given.value.since_version, 0, Number.MAX_SAFE_INTEGER, true);
  checks.integer("limit", given.value.limit, 1, LIMITS.changesPageSize);
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const { version } = opened.value;
  const since = given.value.since_version as number;
  if (since > version) {
    return fail(invalidArguments([{ path: "since_version", problem: `${since} is ahead of the Note's version ${version}; pass a version you have seen` }]));
  }
  const limit = (given.value.limit as number | undefined) ?? LIMITS.changesPageDefault;
  const changes = markRevertible(ctx.store, ctx.store.changePage(since, limit));
  const last = changes.at(-1)?.version ?? since;
  return ok({
    note_id: ctx.id,
    version,
    oldest_version: ctx.store.oldestChange(),
    changes,
    // A short page is the last one: a Note migrated with an older version has no entries before its log began.
    next_since_version: changes.length === limit && last < version ? last : null,
  });
}
