/**
 * The Note's change log: one entry for every committed change, written in the
 * change's own transaction, so the log has exactly one entry per version. It
 * says who (the person, or an agent by its OAuth client), what (the
 * operation) and where (the IDs it touched). Agents read it with
 * list_note_changes and in every version_conflict; the person's page follows
 * it live. It keeps the last CHANGES_KEPT entries: each commit drops at most one.
 *
 * An entry also keeps the names a reader needs, as they were at its version
 * (a tab's label, a source's title, a file's name, the Note's title): a feed
 * tells history as it was, not under today's names, without a read per entry.
 */
import { openNote } from "./pipeline/access.js";
import type { Caller, ChangePage } from "./commands.js";
import type { NoteContext } from "./context.js";
import { invalidArguments } from "./errors.js";
import { LIMITS } from "./limits.js";
import { fail, ok, type Result } from "./result.js";
import type { ChangeUndo } from "./store.js";
import { FIXED_TAB_LABELS } from "./tabs/ids.js";
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

/**
 * The names an entry keeps, as they were when it committed, each clipped to
 * NAME_KEPT UTF-16 units (clipName). An entry written before they existed has
 * none: a reader falls back to the IDs.
 */
export interface Names {
  /** create_note, rename_note, delete_note: the Note's title after the change (before it, for delete_note). */
  note_title?: string;
  /** rename_note: the title before. */
  note_title_before?: string;
  /** Every entry with a tab_id: the tab's label after the change (before it, for delete_tab). */
  tab_label?: string;
  /** rename_tab: the label before. */
  tab_label_before?: string;
  /** add_source: the source's title. */
  source_title?: string;
  /** add_file: the file's name. */
  file_name?: string;
}

export interface ChangeEntry extends Touched, Names {
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

/** A name an entry keeps is at most this many UTF-16 units (a longer one is cut and ends with "…"). */
export const NAME_KEPT = 100;

/** A name as an entry keeps it: at most NAME_KEPT UTF-16 units, a longer one cut to NAME_KEPT - 1 (never inside a surrogate pair) and "…". */
export function clipName(name: string): string {
  if (name.length <= NAME_KEPT) return name;
  const end = /[\ud800-\udbff]/.test(name.charAt(NAME_KEPT - 2)) ? NAME_KEPT - 2 : NAME_KEPT - 1;
  return `${name.slice(0, end)}…`;
}

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
/** The names, in the order an entry lists them, after what it touched (the log's JSON is byte-stable). */
const NAME_FIELDS = ["note_title", "note_title_before", "tab_label", "tab_label_before", "source_title", "file_name"] as const;

/**
 * Writes the entry of the change committing as `version`, with what takes it back (`undo`, for a content
 * change), and drops the one that falls out of the log. `names` are what the change knew (a label before
 * a rename, a deleted tab's label, a source's title); the touched tab's label is read here, after the
 * change, unless `names` gives it.
 */
export function logChange(
  ctx: NoteContext,
  caller: Caller,
  version: number,
  operation: string,
  touched: Touched,
  names: Names = {},
  undo?: { steps: UndoStep[]; reverts?: Reverting | undefined },
): void {
  // What it touched in one fixed order, whatever order the change gave it in.
  const entry: ChangeEntry = { version, at: isoTime(ctx.now()), actor: actorOf(caller), operation };
  if (touched.tab_id !== undefined) entry.tab_id = touched.tab_id;
  let omitted = 0;
  for (const list of ID_LISTS) {
    const ids = touched[list];
    if (ids === undefined) continue;
    entry[list] = ids.length <= IDS_PER_CHANGE ? ids : ids.slice(0, IDS_PER_CHANGE);
    omitted += Math.max(0, ids.length - IDS_PER_CHANGE);
  }
  if (touched.source_id !== undefined) entry.source_id = touched.source_id;
  if (touched.file_id !== undefined) entry.file_id = touched.file_id;
  if (touched.member !== undefined) entry.member = touched.member;
  if (undo?.reverts !== undefined) entry.reverts = undo.reverts.version;
  if (omitted > 0) entry.ids_omitted = omitted;
  const label = names.tab_label ?? (touched.tab_id === undefined ? undefined : labelNow(ctx, touched.tab_id));
  const kept: Names = label === undefined ? names : { ...names, tab_label: label };
  for (const field of NAME_FIELDS) {
    const name = kept[field];
    if (name !== undefined) entry[field] = clipName(name);
  }
  const undone: ChangeUndo | null = undo === undefined ? null : { touch: indexTouches(ctx.store, version, undo.steps, undo.reverts), steps: undo.steps };
  ctx.store.recordChange(entry, undone);
  if (version > CHANGES_KEPT) ctx.store.dropChange(version - CHANGES_KEPT);
}

/** A tab's label now: a fixed tab's never changes; any other is read (the pipelines pass it, so this read is a safety net). */
function labelNow(ctx: NoteContext, tabId: string): string | undefined {
  return Object.hasOwn(FIXED_TAB_LABELS, tabId) ? FIXED_TAB_LABELS[tabId as keyof typeof FIXED_TAB_LABELS] : ctx.store.tab(tabId)?.label;
}

/** The tab label a write's result or a person's change reports (create_tab's `label`, a person's `tab`). */
export function labelOf(result: object): Names {
  const { label, tab } = result as { label?: unknown; tab?: { label?: unknown } };
  const given = tab !== undefined ? tab.label : label;
  return typeof given === "string" ? { tab_label: given } : {};
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
