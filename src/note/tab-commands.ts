/**
 * The operations on the tab strip: the agent lists, reads and creates tabs;
 * the person also adds a tab where they like, renames, moves and deletes.
 * Every one names an existing tab by its exact ID (tabs.ts).
 */
import { openNote } from "./access.js";
import type { Caller, Input, TabContent, TabList } from "./commands.js";
import type { NoteContext } from "./context.js";
import { invalidArguments, wrongTabType } from "./errors.js";
import { decodeSlidesCursor, encodeSlidesCursor } from "./cursor.js";
import { asGiven, type KeyedWrite } from "./keyed-write.js";
import { LIMITS } from "./limits.js";
import type { PersonChange } from "./person-change.js";
import { fail, ok, type Result } from "./result.js";
import { newSlides, numbered } from "./slides.js";
import { ADDABLE_TAB_TYPES } from "./tab-id.js";
import { appendTab, findAddedTab, findTab, placeTab, removeTab, roomForTab, summary } from "./tabs.js";
import { Checks, fields, noFields } from "./validate.js";

/** `list_note_tabs`: every tab in strip order, with the version a write must carry. */
export function listTabs(ctx: NoteContext, caller: Caller, input: unknown): Result<TabList> {
  const given = noFields(input);
  if (!given.ok) return given;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  return ok({ note_id: ctx.id, title: meta.title, version: meta.version, tabs: ctx.store.tabs().map(summary) });
}

/**
 * `read_note_tab`: a page of a slides tab's slides (`limit`, default 50, from
 * `cursor`), or the whole Markdown text, by exact tab ID.
 */
export function readTab(ctx: NoteContext, caller: Caller, input: unknown): Result<TabContent> {
  const given = fields(input);
  if (!given.ok) return given;
  const { tab_id: tabId, limit, cursor } = given.value;
  const checks = new Checks();
  checks.onlyFields(given.value, ["tab_id", "limit", "cursor"]);
  checks.tabId("tab_id", tabId);
  checks.integer("limit", limit, 1, LIMITS.slidesPageSize);
  let from = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === "string" && typeof tabId === "string" ? decodeSlidesCursor(ctx.id, tabId, cursor) : null;
    if (decoded === null) checks.add("cursor", "not a cursor read_note_tab issued for this tab; pass next_cursor exactly as returned, or omit it to start over");
    else from = decoded;
  }
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const found = findTab(ctx.store, tabId as string);
  if (!found.ok) return found;
  const tab = found.value;
  const base = { note_id: ctx.id, version: opened.value.version, tab: summary(tab) };
  if (tab.type === "slides") {
    const size = (limit as number | undefined) ?? LIMITS.slidesPageSize;
    // One row past the page tells whether another follows.
    const rows = ctx.store.slidePage(tab.id, from, size + 1);
    const page = rows.slice(0, size);
    const next_cursor = rows.length > size ? encodeSlidesCursor(ctx.id, tab.id, from + size) : null;
    return ok({ ...base, slides: numbered(page, from), next_cursor });
  }
  if (tab.type === "markdown") {
    const paging = (["limit", "cursor"] as const).filter((name) => given.value[name] !== undefined);
    if (paging.length > 0) return fail(invalidArguments(paging.map((path) => ({ path, problem: "pages a slides tab only; a markdown tab is read whole" }))));
    return ok({ ...base, text: ctx.store.markdown() });
  }
  const hint = tab.type === "sheet" ? "Sheet content is edited by the person in the app." : "Use list_note_attachments for its items.";
  return fail(wrongTabType(tab, ["slides", "markdown"], `Tab "${tab.id}" is a ${tab.type} tab; read_note_tab reads slides and markdown tabs. ${hint}`));
}

/** `create_note_tab`: a Slides or Sheet tab at the end of the strip, with an optional outline. */
export const CREATE_TAB: KeyedWrite<"create_tab", Input<"create_tab">, Input<"create_tab">> = {
  tool: "create_tab",
  fields: ["tab_type", "label", "slides"],
  validate: (i, checks) => {
    checks.oneOf("tab_type", i.tab_type, ADDABLE_TAB_TYPES);
    checks.label("label", i.label, false);
    if (i.slides === undefined) return;
    // An empty deck omits `slides`; an empty list is a mistake more often than a choice.
    checks.slides("slides", i.slides, 1, LIMITS.slidesPerCall);
    if (i.tab_type === "sheet") checks.add("slides", "only a slides tab can be created with slides");
  },
  prepare: asGiven,
  apply: (ctx, meta, i, version) => {
    const room = roomForTab(meta);
    if (!room.ok) return room;
    const { slides, meta: identified } = newSlides(ctx.now(), meta, i.slides ?? []);
    const { tab, meta: after } = appendTab(ctx, identified, i.tab_type, i.label, slides);
    const result = {
      note_id: ctx.id,
      tab_id: tab.id,
      tab_type: i.tab_type,
      label: tab.label,
      position: tab.position,
      slide_count: tab.slide_count,
      slide_ids: slides.map((slide) => slide.id),
      version,
      replayed: false,
      arguments_differ: false,
    };
    return ok({ commit: true, meta: after, result });
  },
};

/** The person adds a tab, at the end or at `position`. */
export const ADD_TAB: PersonChange<Input<"add_tab">> = {
  fields: ["tab_type", "label", "position"],
  validate: (i, checks) => {
    checks.oneOf("tab_type", i.tab_type, ADDABLE_TAB_TYPES);
    checks.label("label", i.label, false);
    // The strip's length is known only once the Note is open: see apply.
    checks.integer("position", i.position, 0, Number.MAX_SAFE_INTEGER);
  },
  apply: (ctx, meta, i) => {
    // The new tab's place can be anywhere from the first to just after the last tab.
    if (i.position !== undefined && i.position > meta.tab_count) {
      return fail(invalidArguments([{ path: "position", problem: `must be at most ${meta.tab_count}` }]));
    }
    const room = roomForTab(meta);
    if (!room.ok) return room;
    const added = appendTab(ctx, meta, i.tab_type, i.label, []);
    const placed = i.position === undefined ? null : placeTab(ctx.store, added.tab.id, i.position);
    return ok({ meta: added.meta, tab: summary(placed ?? added.tab) });
  },
};

export const RENAME_TAB: PersonChange<Input<"rename_tab">> = {
  fields: ["tab_id", "label"],
  validate: (i, checks) => {
    checks.tabId("tab_id", i.tab_id);
    checks.label("label", i.label, true);
  },
  apply: (ctx, _meta, i) => {
    const found = findAddedTab(ctx.store, i.tab_id, "renamed");
    if (!found.ok) return found;
    const label = i.label.trim();
    if (found.value.label === label) return ok("unchanged");
    const renamed = { ...found.value, label };
    ctx.store.updateTab(renamed);
    return ok({ tab: summary(renamed) });
  },
};

export const MOVE_TAB: PersonChange<Input<"move_tab">> = {
  fields: ["tab_id", "position"],
  validate: (i, checks) => {
    checks.tabId("tab_id", i.tab_id);
    checks.integer("position", i.position, 0, Number.MAX_SAFE_INTEGER, true);
  },
  apply: (ctx, meta, i) => {
    const found = findTab(ctx.store, i.tab_id);
    if (!found.ok) return found;
    if (i.position >= meta.tab_count) return fail(invalidArguments([{ path: "position", problem: `must be at most ${meta.tab_count - 1}` }]));
    const moved = placeTab(ctx.store, i.tab_id, i.position);
    return moved === null ? ok("unchanged") : ok({ tab: summary(moved) });
  },
};

export const DELETE_TAB: PersonChange<Input<"delete_tab">> = {
  fields: ["tab_id"],
  validate: (i, checks) => checks.tabId("tab_id", i.tab_id),
  apply: (ctx, meta, i) => {
    const found = findAddedTab(ctx.store, i.tab_id, "deleted");
    if (!found.ok) return found;
    removeTab(ctx.store, i.tab_id);
    return ok({ meta: { ...meta, tab_count: meta.tab_count - 1 } });
  },
};
