/**
 * Taking a change back (docs/spec.md §10). Every content change records, in
 * its own transaction and in its own log row, the steps it took: what each
 * item it touched was before and after (a slide's fields, a row's cells, a
 * tab's label or place, the Markdown's edited stretch, the title), or which
 * items it added or deleted. A deletion does not copy what it deleted: the
 * items move, keys and content as they were, to a trash tab ID of the
 * deleting version (`~{version}`), which no tab ever has, and come back from
 * there. The trash of a version goes with its log entry (CHANGES_KEPT).
 *
 * A revert applies the inverse of each step, newest first, and records the
 * steps it took in turn: so a revert of a revert is a redo. It is refused
 * when a later change touched any item the change touched (`touch`), so it
 * never undoes anyone's later work.
 */
import type { Caller, Input } from "./commands.js";
import type { ChangeEntry, Touched } from "./changes.js";
import { CHANGES_KEPT, CONFLICT_CHANGES } from "./changes.js";
import type { NoteContext } from "./context.js";
import { tellMembers } from "./directory.js";
import { limitExceeded, type NoteError } from "./errors.js";
import { LIMITS } from "./limits.js";
import type { KeyedWrite } from "./pipeline/keyed-write.js";
import type { PersonChange } from "./pipeline/person-change.js";
import { nextVersion } from "./pipeline/version.js";
import { fail, ok, type Result } from "./result.js";
import type { Cells, FileRow, Keyed, NoteMeta, NoteStore, Sequence, SourceRow, TabRow } from "./store.js";
import { placeTab, summary } from "./tabs/find.js";
import { keyToFollow, rekey } from "./tabs/order.js";
import type { Checks } from "./validate.js";

export type SlideFields = { title?: string; body?: string; notes?: string };
type What = "slide" | "row";

/** One step a change took, as it took it (forward); a revert applies its inverse. */
export type UndoStep =
  | { do: "slide_fields"; tab: string; id: string; before: SlideFields; after: SlideFields }
  | { do: "row_cells"; tab: string; id: string; before: Cells; after: Cells }
  /** An item moved: from right after `before` to right after `after` (IDs; null is first). */
  | { do: "item_place"; what: What; tab: string; id: string; before: string | null; after: string | null; key_before?: number }
  /** Items came into the tab: new ones, or (`trash`) back from a trash. `whole`: the tab's whole content was replaced. */
  | { do: "items_add"; what: What; tab: string; ids: string[]; trash?: string; whole?: true }
  /** Items left the tab for the trash `trash`. */
  | { do: "items_remove"; what: What; tab: string; ids: string[]; trash: string; whole?: true; after_id?: string | null }
  /** A tab was added (with its items; from `trash` when it comes back). */
  | { do: "tab_add"; tab: TabRow; trash?: string }
  /** A tab left the strip, its items for `trash`. */
  | { do: "tab_remove"; tab: TabRow; trash: string }
  | { do: "tab_label"; tab: string; before: string; after: string }
  | { do: "tab_place"; tab: string; before: number; after: number }
  | { do: "columns_add"; tab: string; columns: string[] }
  | { do: "columns_remove"; tab: string; columns: string[] }
  /** The Markdown's text from `at`: `before` was replaced by `after`. */
  | { do: "markdown"; at: number; before: string; after: string }
  | { do: "title"; before: string; after: string }
  | { do: "source_add"; source: SourceRow }
  | { do: "source_remove"; source: SourceRow }
  | { do: "file_add"; file: FileRow }
  | { do: "file_remove"; file: FileRow };

/**
 * What a change touched, for the conflict check: item keys (slide and row
 * IDs, `label:`/`place:`/`columns:` of a tab, `markdown`, `title`, source and
 * file IDs, `url:` of a cited page), the tabs it worked in, and the tabs it
 * changed as a whole (created, deleted, its slides replaced, its columns).
 */
export interface ChangeTouch {
  keys: string[];
  tabs?: string[];
  whole?: string[];
  /** What the change wrote in the touch index, by key, and what each key held before. */
  wrote?: Record<string, number>;
  prev?: Record<string, number>;
  /**
   * A revert's: what each key its conflict check reads held once it committed. A revert only puts keys
   * back, so a later revert can put a key below this revert's version (a tab it worked in taken away by
   * taking back the tab's creation): any key not as it was then means a later change touched it.
   */
  seen?: Record<string, number>;
  /**
   * The oldest version, other than its own, whose trash its revert brings items back from (a redo's: the deletion it
   * redoes). That trash goes with that version's log entry: once it has, the change cannot be taken back.
   */
  trash?: number;
}

/** The versions, other than `version`'s own, whose trash the revert of a change of these steps brings items back from. */
function foreignTrash(version: number, steps: readonly UndoStep[]): number[] {
  return steps.flatMap((step) => ((step.do === "items_remove" || step.do === "tab_remove") && step.trash !== trashOf(version) ? [Number(step.trash.slice(1))] : []));
}

/**
 * Where a change committing as `version` puts items it takes away that came back from `trash` (a redo of a deletion):
 * back into that trash, where the deletion looks for them, while the deletion's log entry outlives this commit; else
 * into its own, which lasts as long as its own entry (the deletion's trash goes with the deletion's entry).
 */
function trashFor(trash: string | undefined, version: number): string {
  return trash !== undefined && Number(trash.slice(1)) > version - CHANGES_KEPT ? trash : trashOf(version);
}

/** The trash of the change committing as `version`: a tab ID no tab has (tab IDs never start with "~"). */
export function trashOf(version: number): string {
  return `~${version}`;
}

export function isTrash(tabId: string): boolean {
  return tabId.startsWith("~");
}

/** What the steps touched. */
export function touchOf(steps: readonly UndoStep[]): ChangeTouch {
  const keys = new Set<string>();
  const tabs = new Set<string>();
  const whole = new Set<string>();
  for (const step of steps) {
    switch (step.do) {
      case "slide_fields":
      case "row_cells":
        keys.add(step.id);
        tabs.add(step.tab);
        break;
      case "item_place":
        keys.add(step.id);
        // Where it goes back to must still be there: the item it followed is part of what the move relied on.
        if (step.before !== null) keys.add(step.before);
        if (step.after !== null) keys.add(step.after);
        tabs.add(step.tab);
        break;
      case "items_add":
      case "items_remove":
        for (const id of step.ids) keys.add(id);
        tabs.add(step.tab);
        if (step.whole === true) whole.add(step.tab);
        break;
      case "tab_add":
      case "tab_remove":
        keys.add(step.tab.id);
        tabs.add(step.tab.id);
        whole.add(step.tab.id);
        break;
      case "tab_label":
        keys.add(`label:${step.tab}`);
        tabs.add(step.tab);
        break;
      case "tab_place":
        keys.add(`place:${step.tab}`);
        tabs.add(step.tab);
        break;
      case "columns_add":
      case "columns_remove":
        keys.add(`columns:${step.tab}`);
        tabs.add(step.tab);
        whole.add(step.tab);
        break;
      case "markdown":
        keys.add("markdown");
        break;
      case "title":
        keys.add("title");
        break;
      case "source_add":
      case "source_remove":
        keys.add(`source-${step.source.seq}`);
        keys.add(`url:${step.source.normalized_url}`);
        break;
      case "file_add":
      case "file_remove":
        keys.add(`file-${step.file.seq}`);
        break;
    }
  }
  const touch: ChangeTouch = { keys: [...keys] };
  if (tabs.size > 0) touch.tabs = [...tabs];
  if (whole.size > 0) touch.whole = [...whole];
  return touch;
}

/** Whether a later change (`later`) touched what `mine` touched. */
function overlaps(mine: ChangeTouch, later: ChangeTouch): boolean {
  const keys = new Set(later.keys);
  if (mine.keys.some((key) => keys.has(key))) return true;
  if (later.whole !== undefined && mine.tabs?.some((tab) => later.whole?.includes(tab)) === true) return true;
  if (mine.whole !== undefined && later.tabs?.some((tab) => mine.whole?.includes(tab)) === true) return true;
  return false;
}

/**
 * The keys of the touch index (the `touched` table: each key with the last
 * version that touched it) a change of these steps writes: its item keys,
 * `tab:T` for each tab it worked in and `whole:T` for each it changed as a
 * whole. Items it created are left out: no earlier change can have touched
 * them, and a later one that does writes them. So a slide_update writes two.
 */
export function indexKeys(steps: readonly UndoStep[]): string[] {
  const keys = new Set<string>();
  for (const step of steps) {
    if ((step.do === "items_add" || step.do === "tab_add") && step.trash === undefined) {
      // New items or a new tab: only what an earlier change of the tab must learn (its content was replaced).
      if (step.do === "items_add") {
        keys.add(`tab:${step.tab}`);
        if (step.whole === true) keys.add(`whole:${step.tab}`);
      }
      continue;
    }
    const touch = touchOf([step]);
    for (const key of touch.keys) keys.add(key);
    for (const tab of touch.tabs ?? []) keys.add(`tab:${tab}`);
    for (const tab of touch.whole ?? []) keys.add(`whole:${tab}`);
  }
  return [...keys];
}

/**
 * Writes the touch index for the change committing as `version` and returns
 * what the log row keeps of it. The index holds, for each key, the version
 * whose effect on it is in place: a change writes its own version on its
 * keys; a revert puts back, on each key still holding what the change it
 * takes back wrote, the value from before that change. So a change and its
 * revert cancel out, and a change made before both can be taken back; a
 * revert of the revert puts the change's own values back.
 */
export function indexTouches(store: NoteStore, version: number, steps: readonly UndoStep[], reverting?: Reverting): ChangeTouch {
  const writes: [string, number][] = [];
  const prev: Record<string, number> = {};
  if (reverting === undefined) {
    const keys = indexKeys(steps);
    const now = store.lastTouches(keys);
    for (const key of keys) {
      prev[key] = now.get(key) ?? 0;
      writes.push([key, version]);
    }
  } else {
    const wrote = reverting.touch.wrote ?? {};
    const keys = Object.keys(wrote);
    const now = store.lastTouches(keys);
    for (const key of keys) {
      const held = now.get(key) ?? 0;
      if (held !== wrote[key]) continue;
      prev[key] = held;
      writes.push([key, reverting.touch.prev?.[key] ?? 0]);
    }
    // What this revert takes away (a slide or row the change added, a tab it created, or what a redo had brought back) is its
    // own effect, not a key put back: an earlier revert in that tab or of those items, left in place, could not be redone now.
    // Not `tab:` nor a whole deck's `whole:` (a replaced deck put back cancels out), but a tab taken away is `whole:` too.
    const gone = [
      ...new Set(
        steps.flatMap((step) => {
          if (step.do !== "items_remove" && step.do !== "tab_remove") return [];
          const touch = touchOf([step]);
          return [...touch.keys, ...(step.do === "tab_remove" ? (touch.whole ?? []).map((tab) => `whole:${tab}`) : [])];
        }),
      ),
    ];
    const before = gone.length === 0 ? new Map<string, number>() : store.lastTouches(gone.filter((key) => prev[key] === undefined));
    for (const key of gone) {
      const at = writes.findIndex(([k]) => k === key);
      // Put back to an earlier change's version (a redo: what the change it redoes took away goes again): that change's
      // effect is in place, and the change can be taken back again, as its revert and the revert's revert cancel out.
      if (at >= 0 && (writes[at] as [string, number])[1] > 0) continue;
      prev[key] ??= before.get(key) ?? 0;
      if (at >= 0) writes.splice(at, 1);
      writes.push([key, version]);
    }
    // The change taken back is no longer in effect: taking it back again conflicts with this revert, until this one is taken back.
    const mark = `rev:${reverting.version}`;
    prev[mark] = store.lastTouches([mark]).get(mark) ?? 0;
    writes.push([mark, version]);
  }
  if (writes.length > 0) store.writeTouches(writes);
  const touch: ChangeTouch = { ...touchOf(steps), wrote: Object.fromEntries(writes), prev };
  const foreign = foreignTrash(version, steps);
  if (foreign.length > 0) touch.trash = Math.min(...foreign);
  if (reverting !== undefined) {
    const wrote = touch.wrote ?? {};
    const probed = probeKeys(version, touch);
    const unread = probed.filter((key) => wrote[key] === undefined && key !== `rev:${version}`);
    const held = unread.length === 0 ? new Map<string, number>() : store.lastTouches(unread);
    touch.seen = Object.fromEntries(probed.map((key) => [key, wrote[key] ?? held.get(key) ?? 0]));
  }
  return touch;
}

/** The index keys whose last version tells whether a change that touched `touch` was touched since. */
function probeKeys(version: number, touch: ChangeTouch): string[] {
  // `rev:{version}`: a revert of this change that is in effect (it was taken back already).
  // A revert's own `rev:` marks too: it put back (or took away) a change's effect, and a later revert of that change undid it
  // (a redo, then the change taken back once more): its item keys say nothing then, as reverts only put keys back.
  const marks = Object.keys(touch.wrote ?? {}).filter((key) => key.startsWith("rev:") && key !== `rev:${version}`);
  return [`rev:${version}`, ...marks, ...touch.keys, ...(touch.tabs ?? []).map((tab) => `whole:${tab}`), ...(touch.whole ?? []).map((tab) => `tab:${tab}`)];
}

/** Whether a change after `version` touched what `touch` did: one read of the index per key, whatever the Note's size or the log's length. */
function touchedSince(last: ReadonlyMap<string, number>, version: number, touch: ChangeTouch): boolean {
  const seen = touch.seen ?? {};
  return probeKeys(version, touch).some((key) => {
    const now = last.get(key) ?? 0;
    return now > version || (seen[key] !== undefined && now !== seen[key]);
  });
}

/** The versions after `version` whose change touched what `touch` did, oldest first: read from the log, only when a revert is refused. */
function laterTouching(store: NoteStore, version: number, touch: ChangeTouch): number[] {
  return store
    .touchesSince(version)
    .filter((later) => later.touch !== null && overlaps(touch, later.touch))
    .map((later) => later.version);
}

/**
 * Of the later changes that touched what change `target` touched, those still in effect, oldest first: a later
 * change taken back since, and its revert, cancel out and are left out (a revert of that revert puts the change
 * back in effect). A revert of `target` itself stays: it is why the change cannot be taken back again. When all
 * cancel out, all are shown rather than none.
 */
function inEffect(store: NoteStore, target: number, versions: readonly number[]): ChangeEntry[] {
  const entries = versions.flatMap((v) => {
    const found = store.change(v);
    return found === null ? [] : [found.entry];
  });
  const listed = new Set(versions);
  const cancelled = new Set<number>();
  for (const entry of [...entries].reverse()) {
    if (cancelled.has(entry.version) || entry.reverts === undefined) continue;
    if (entry.reverts > target && listed.has(entry.reverts)) {
      cancelled.add(entry.version);
      cancelled.add(entry.reverts);
    }
  }
  const active = entries.filter((entry) => !cancelled.has(entry.version));
  return active.length > 0 ? active : entries;
}

/**
 * Of a page of the log's entries with what each touched, whether each can be
 * taken back now: it kept its undo information and nothing after it touched
 * what it touched. One read of the touch index for the page's keys.
 */
export function markRevertible(store: NoteStore, page: readonly { entry: ChangeEntry; touch: ChangeTouch | null }[]): ChangeEntry[] {
  const keys = new Set<string>();
  for (const { entry, touch } of page) if (touch !== null) for (const key of probeKeys(entry.version, touch)) keys.add(key);
  const last = keys.size === 0 ? new Map<string, number>() : store.lastTouches([...keys]);
  const oldest = page.some(({ touch }) => touch?.trash !== undefined) ? (store.oldestChange() ?? 0) : 0;
  return page.map(({ entry, touch }) => ({
    ...entry,
    revertible: touch !== null && !NOT_CONTENT.has(entry.operation) && !(touch.trash !== undefined && touch.trash < oldest) && !touchedSince(last, entry.version, touch),
  }));
}

/** The operations that change no content: never revertible. */
const NOT_CONTENT = new Set(["create_note", "delete_note", "set_approval", "add_member", "remove_member"]);

/** What a revert needs from valid fields. */
interface RevertTarget {
  version: number;
}

function validateTarget(input: Readonly<Record<string, unknown>>, checks: Checks): void {
  checks.integer("version", input.version, 1, Number.MAX_SAFE_INTEGER, true);
}

/** What a revert did: the Note's meta after it, its steps, and what the log says it touched. */
interface Reverted {
  meta: NoteMeta;
  steps: UndoStep[];
  touched: Touched;
  reverting: Reverting;
}

/** The change a revert takes back: its version, and what it touched and wrote in the touch index. */
export interface Reverting {
  version: number;
  touch: ChangeTouch;
}

/**
 * Takes the change `target` back, over the meta read at the start, as the
 * change committing as `version`: the target checks (in the log, content,
 * undo information kept, nothing later touched it), then each step's inverse.
 */
function revert(ctx: NoteContext, meta: NoteMeta, target: number, version: number): Result<Reverted> {
  const found = ctx.store.change(target);
  if (found === null) {
    const oldest = ctx.store.oldestChange();
    const where =
      target > meta.version
        ? `the Note is at version ${meta.version}`
        : oldest !== null && target < oldest
          ? `the log keeps versions ${oldest} to ${meta.version} only`
          : "the log has no entry for it (the Note's log began later)";
    return fail({
      code: "change_not_found",
      message: `No change ${target} in this Note's log: ${where}. Call list_note_changes for the changes you can take back.`,
      version: target,
      oldest_version: oldest,
      current_version: meta.version,
    });
  }
  const { entry, undo } = found;
  if (undo === null || NOT_CONTENT.has(entry.operation)) {
    const reason = NOT_CONTENT.has(entry.operation)
      ? `${entry.operation} changes no content (creating or deleting the Note, membership and approval are never taken back)`
      : "its undo information is gone (it was made before this Note kept any)";
    return fail({
      code: "not_revertible",
      message: `Change ${target} (${entry.operation}) cannot be taken back: ${reason}. Make the change you want as a new one instead.`,
      version: target,
      operation: entry.operation,
      reason,
    });
  }
  // What it would bring back from another change's trash went with that change's log entry.
  const oldest = ctx.store.oldestChange() ?? 0;
  const lost = foreignTrash(target, undo.steps).find((v) => v < oldest);
  if (lost !== undefined) {
    const reason = `what it would bring back was kept with change ${lost}, which the log no longer holds`;
    return fail({
      code: "not_revertible",
      message: `Change ${target} (${entry.operation}) cannot be taken back: ${reason}. Make the change you want as a new one instead.`,
      version: target,
      operation: entry.operation,
      reason,
    });
  }
  const conflict = (): Result<never> => {
    const later = inEffect(ctx.store, target, laterTouching(ctx.store, target, undo.touch));
    const changes = later.slice(0, CONFLICT_CHANGES);
    const list = changes.map((c) => `${c.version} (${c.operation}${c.reverts === undefined ? "" : ` of ${c.reverts}`} by ${c.actor.kind === "person" ? c.actor.user : (c.actor.client_name ?? c.actor.client_id)})`).join(", ");
    return fail({
      code: "revert_conflict",
      message:
        `Change ${target} (${entry.operation}) cannot be taken back: later changes touched what it touched: ${list}. ` +
        "Taking it back would undo their work (or it was taken back already). Take those back first, newest first, or make the change you want as a new one.",
      version: target,
      changes,
      changes_complete: changes.length === later.length,
    });
  };
  if (touchedSince(ctx.store.lastTouches(probeKeys(target, undo.touch)), target, undo.touch)) return conflict();
  const state = { meta };
  const steps: UndoStep[] = [];
  for (const step of [...undo.steps].reverse()) {
    const done = inverse(ctx, state, step, version);
    // An item not as the change left it, which no later change in effect touched: the change was taken back already.
    if (!done.ok) return done.error.code === "revert_conflict" ? conflict() : done;
    steps.push(done.value);
  }
  if (steps.some((step) => step.do === "title")) tellMembers(ctx.store, { ...state.meta, version });
  return ok({ meta: state.meta, steps, touched: touchedOf(steps), reverting: { version: target, touch: undo.touch } });
}

/** What the log's entry says a change of these steps touched. */
export function touchedOf(steps: readonly UndoStep[]): Touched {
  const touched: Touched = {};
  const slides: string[] = [];
  const rows: string[] = [];
  for (const step of steps) {
    switch (step.do) {
      case "slide_fields":
        touched.tab_id ??= step.tab;
        slides.push(step.id);
        break;
      case "row_cells":
        touched.tab_id ??= step.tab;
        rows.push(step.id);
        break;
      case "item_place":
      case "items_add":
      case "items_remove":
        touched.tab_id ??= step.tab;
        (step.what === "slide" ? slides : rows).push(...(step.do === "item_place" ? [step.id] : step.ids));
        break;
      case "tab_add":
      case "tab_remove":
        touched.tab_id ??= step.tab.id;
        break;
      case "tab_label":
      case "tab_place":
      case "columns_add":
      case "columns_remove":
        touched.tab_id ??= step.tab;
        break;
      case "markdown":
        touched.tab_id ??= "markdown";
        break;
      case "title":
        break;
      case "source_add":
      case "source_remove":
        touched.tab_id ??= "sources";
        touched.source_id = `source-${step.source.seq}`;
        break;
      case "file_add":
      case "file_remove":
        touched.tab_id ??= "files";
        touched.file_id = `file-${step.file.seq}`;
        break;
    }
  }
  if (slides.length > 0) touched.slide_ids = [...new Set(slides)];
  if (rows.length > 0) touched.row_ids = [...new Set(rows)];
  return touched;
}

/** A step whose item is not where the log says: a Note damaged outside its rules, never a later change (the touch check ran). */
function drifted(what: string): Result<never> {
  return fail({
    code: "revert_conflict",
    message: `The change cannot be taken back: ${what} is not as the change left it. Re-read the Note and make the change you want as a new one.`,
    version: 0,
    changes: [],
    changes_complete: false,
  });
}

function sequence(store: NoteStore, what: What): Sequence<{ id: string }> {
  return (what === "slide" ? store.slides : store.rows) as Sequence<{ id: string }>;
}

/** Applies the inverse of `step` as part of the change committing as `version`; returns the step it took. */
function inverse(ctx: NoteContext, state: { meta: NoteMeta }, step: UndoStep, version: number): Result<UndoStep> {
  const { store } = ctx;
  switch (step.do) {
    case "slide_fields": {
      const slide = store.slides.find(step.id);
      if (slide === null || slide.tab_id !== step.tab || Object.entries(step.after).some(([field, value]) => slide[field as keyof SlideFields] !== value)) return drifted(`slide "${step.id}"`);
      store.slides.update(step.tab, { ...slide, ...step.before, key: slide.key });
      return ok({ ...step, before: step.after, after: step.before });
    }
    case "row_cells": {
      const row = store.rows.find(step.id);
      if (row === null || row.tab_id !== step.tab || JSON.stringify(row.cells) !== JSON.stringify(step.after)) return drifted(`row "${step.id}"`);
      store.rows.update(step.tab, { id: row.id, key: row.key, cells: step.before });
      return ok({ ...step, before: step.after, after: step.before });
    }
    case "item_place": {
      const items = sequence(store, step.what);
      const item = items.find(step.id);
      const after = step.before === null ? null : items.find(step.before);
      if (item === null || item.tab_id !== step.tab || (after !== null && after.tab_id !== step.tab) || (step.before !== null && after === null)) {
        return drifted(`${step.what} "${step.id}" or the one it followed`);
      }
      const now = items.itemBefore(step.tab, item.key)?.id ?? null;
      const was = item.key;
      moveTo(items, step.tab, item, after, step.key_before);
      return ok({ ...step, before: now, after: step.before, key_before: was });
    }
    case "items_add": {
      // The items leave the tab for this change's trash; items that came back from a trash (a redo) go back to that one,
      // where the change that first deleted them looks for them, while that change is in the log (trashFor).
      const trash = trashFor(step.trash, version);
      const tab = store.tab(step.tab);
      if (tab === null) return drifted(`tab "${step.tab}"`);
      const items = sequence(store, step.what);
      for (const id of step.ids) {
        const item = items.find(id);
        if (item === null || item.tab_id !== step.tab) return drifted(`${step.what} "${id}"`);
      }
      const single = step.ids.length === 1 ? items.find(step.ids[0] as string) : null;
      const afterId = single === null ? undefined : (items.itemBefore(step.tab, single.key)?.id ?? null);
      items.retab(step.tab, trash, step.ids);
      store.updateTab(counted(tab, step.what, -step.ids.length));
      const removed: UndoStep = { do: "items_remove", what: step.what, tab: step.tab, ids: step.ids, trash, ...(afterId === undefined ? {} : { after_id: afterId }) };
      return ok(withWhole(removed, step.whole));
    }
    case "items_remove": {
      const tab = store.tab(step.tab);
      if (tab === null) return drifted(`tab "${step.tab}"`);
      const room = roomFor(tab, step.what, step.ids.length);
      if (!room.ok) return room;
      const items = sequence(store, step.what);
      const back = step.ids.map((id) => items.find(id));
      if (back.some((item) => item === null || item.tab_id !== step.trash)) return drifted(`the ${step.what}s it deleted`);
      const followed = step.after_id === undefined || step.after_id === null ? null : items.find(step.after_id);
      const placed = step.ids.length === 1 && step.after_id !== undefined && (step.after_id === null || (followed !== null && followed.tab_id === step.tab));
      for (const item of (back as (Keyed<{ id: string }> & { tab_id: string })[]).sort((a, b) => a.key - b.key)) {
        // One item goes back right after the item it followed (first, when it was), at its own key when that still fits there;
        // else, and for many, at its own key, or, when an item added since holds it, right after the item before that key.
        const key = placed ? keyAfterItem(items, step.tab, followed, item.key) : freeKeyAt(items, step.tab, item.key);
        if (key !== item.key) items.update(step.trash, { ...item, key });
        items.retab(step.trash, step.tab, [item.id]);
      }
      store.updateTab(counted(tab, step.what, step.ids.length));
      return ok(withWhole({ do: "items_add", what: step.what, tab: step.tab, ids: step.ids, trash: step.trash }, step.whole));
    }
    case "tab_add": {
      const tab = store.tab(step.tab.id);
      if (tab === null) return drifted(`tab "${step.tab.id}"`);
      const trash = trashFor(step.trash, version);
      store.slides.retab(tab.id, trash, null);
      store.rows.retab(tab.id, trash, null);
      store.deleteTab(tab.id);
      store.tabs().forEach((t, position) => {
        if (t.position !== position) store.updateTab({ ...t, position });
      });
      state.meta = { ...state.meta, tab_count: state.meta.tab_count - 1 };
      return ok({ do: "tab_remove", tab, trash });
    }
    case "tab_remove": {
      if (state.meta.tab_count - 3 >= LIMITS.tabsPerNote) {
        return fail(limitExceeded("tabs_per_note", LIMITS.tabsPerNote, "This Note has as many Slides and Sheet tabs as it may; delete one before taking this deletion back"));
      }
      if (store.tab(step.tab.id) !== null) return drifted(`tab "${step.tab.id}"`);
      store.insertTab({ ...step.tab, position: state.meta.tab_count });
      store.slides.retab(step.trash, step.tab.id, null);
      store.rows.retab(step.trash, step.tab.id, null);
      state.meta = { ...state.meta, tab_count: state.meta.tab_count + 1 };
      const placed = placeTab(store, step.tab.id, Math.min(step.tab.position, state.meta.tab_count - 1));
      const tab = placed ?? { ...step.tab, position: state.meta.tab_count - 1 };
      return ok({ do: "tab_add", tab: { ...step.tab, position: tab.position }, trash: step.trash });
    }
    case "tab_label": {
      const tab = store.tab(step.tab);
      if (tab === null || tab.label !== step.after) return drifted(`tab "${step.tab}"`);
      store.updateTab({ ...tab, label: step.before });
      return ok({ ...step, before: step.after, after: step.before });
    }
    case "tab_place": {
      const tab = store.tab(step.tab);
      // Its place is a position in the strip, which moves of other tabs shift: it goes back to the position it had.
      if (tab === null) return drifted(`tab "${step.tab}"`);
      const to = Math.min(step.before, state.meta.tab_count - 1);
      placeTab(store, step.tab, to);
      return ok({ ...step, before: tab.position, after: to });
    }
    case "columns_add": {
      const tab = store.tab(step.tab);
      if (tab === null || !step.columns.every((name) => tab.columns.includes(name))) return drifted(`tab "${step.tab}"`);
      store.updateTab({ ...tab, columns: tab.columns.filter((name) => !step.columns.includes(name)) });
      return ok({ do: "columns_remove", tab: step.tab, columns: step.columns });
    }
    case "columns_remove": {
      const tab = store.tab(step.tab);
      if (tab === null || step.columns.some((name) => tab.columns.includes(name))) return drifted(`tab "${step.tab}"`);
      if (tab.columns.length + step.columns.length > LIMITS.columnsPerSheet) {
        return fail(limitExceeded("columns_per_sheet", LIMITS.columnsPerSheet, `Tab "${tab.id}" has ${tab.columns.length} columns; taking this back would pass the limit`));
      }
      store.updateTab({ ...tab, columns: [...tab.columns, ...step.columns] });
      return ok({ do: "columns_add", tab: step.tab, columns: step.columns });
    }
    case "markdown": {
      const text = store.markdown();
      if (text.slice(step.at, step.at + step.after.length) !== step.after) return drifted("the Markdown");
      store.writeMarkdown(text.slice(0, step.at) + step.before + text.slice(step.at + step.after.length));
      return ok({ ...step, before: step.after, after: step.before });
    }
    case "title": {
      if (state.meta.title !== step.after) return drifted("the title");
      state.meta = { ...state.meta, title: step.before };
      return ok({ ...step, before: step.after, after: step.before });
    }
    case "source_add": {
      if (store.attachment("sources", step.source.seq) === null) return drifted(`source "source-${step.source.seq}"`);
      store.removeSource(step.source.seq);
      state.meta = { ...state.meta, source_count: state.meta.source_count - 1 };
      return ok({ do: "source_remove", source: step.source });
    }
    case "source_remove": {
      if (state.meta.source_count >= LIMITS.sourcesPerNote) return fail(limitExceeded("sources_per_note", LIMITS.sourcesPerNote, "This Note has as many sources as it may"));
      if (store.sourceByNormalizedUrl(step.source.normalized_url) !== null) return drifted(`the page ${step.source.normalized_url}`);
      store.restoreSource(step.source);
      state.meta = { ...state.meta, source_count: state.meta.source_count + 1 };
      return ok({ do: "source_add", source: step.source });
    }
    case "file_add": {
      if (store.attachment("files", step.file.seq) === null) return drifted(`file "file-${step.file.seq}"`);
      store.removeFile(step.file.seq);
      state.meta = { ...state.meta, file_count: state.meta.file_count - 1 };
      return ok({ do: "file_remove", file: step.file });
    }
    case "file_remove": {
      if (state.meta.file_count >= LIMITS.filesPerNote) return fail(limitExceeded("files_per_note", LIMITS.filesPerNote, "This Note has as many files as it may"));
      store.restoreFile(step.file);
      state.meta = { ...state.meta, file_count: state.meta.file_count + 1 };
      return ok({ do: "file_add", file: step.file });
    }
  }
}

function withWhole<S extends UndoStep>(step: S, whole: true | undefined): S {
  return whole === true ? { ...step, whole } : step;
}

function counted(tab: TabRow, what: What, by: number): TabRow {
  return what === "slide" ? { ...tab, slide_count: tab.slide_count + by } : { ...tab, row_count: tab.row_count + by };
}

function roomFor(tab: TabRow, what: What, adding: number): Result<null> {
  if (what === "slide" && tab.slide_count + adding > LIMITS.slidesPerTab) {
    return fail(limitExceeded("slides_per_tab", LIMITS.slidesPerTab, `Tab "${tab.id}" has ${tab.slide_count} slides; taking this back would pass the limit`));
  }
  if (what === "row" && tab.row_count + adding > LIMITS.rowsPerSheet) {
    return fail(limitExceeded("rows_per_sheet", LIMITS.rowsPerSheet, `Tab "${tab.id}" has ${tab.row_count} rows; taking this back would pass the limit`));
  }
  return ok(null);
}

/** `key` when no item of the tab holds it; else a free key right after the item before it (the tab re-keyed when none is free). */
function freeKeyAt(items: Sequence<{ id: string }>, tabId: string, key: number): number {
  if (items.keyAfter(tabId, key - 1) !== key) return key;
  const before = items.itemBefore(tabId, key);
  const free = keyToFollow(items, tabId, before?.key ?? null);
  if (free !== null) return free;
  const rekeyed = rekey(items, tabId);
  const after = before === null ? null : (rekeyed.find((it) => it.id === before.id)?.key ?? null);
  return keyToFollow(items, tabId, after) as number;
}

/** A free key right after `after` (null: first in the tab): `own` when it still fits there, else one between, the tab re-keyed when none is free. */
function keyAfterItem(items: Sequence<{ id: string }>, tabId: string, after: Keyed<{ id: string }> | null, own: number): number {
  const follower = items.keyAfter(tabId, after?.key ?? null);
  if ((after === null || own > after.key) && (follower === null || own < follower)) return own;
  const free = keyToFollow(items, tabId, after?.key ?? null);
  if (free !== null) return free;
  const rekeyed = rekey(items, tabId);
  const afterKey = after === null ? null : (rekeyed.find((it) => it.id === after.id)?.key ?? null);
  return keyToFollow(items, tabId, afterKey) as number;
}

/** Moves `item` to right after `after` (null: first), as the person's move does. */
function moveTo(items: Sequence<{ id: string }>, tabId: string, item: Keyed<{ id: string }>, after: Keyed<{ id: string }> | null, own?: number): void {
  if (items.keyAfter(tabId, after?.key ?? null) === item.key) return;
  // The key it had there, when that is still free and still between the same neighbours: the place exactly as it was.
  let follower = items.keyAfter(tabId, after?.key ?? null);
  if (follower === item.key) follower = items.keyAfter(tabId, item.key);
  const fits = own !== undefined && items.keyAfter(tabId, own - 1) !== own && (after === null || own > after.key) && (follower === null || own < follower);
  let key = fits ? (own as number) : keyToFollow(items, tabId, after?.key ?? null);
  if (key === null) {
    const rekeyed = rekey(items, tabId);
    const afterKey = rekeyed.find((it) => it.id === after?.id)?.key ?? null;
    key = keyToFollow(items, tabId, afterKey) as number;
  }
  const fresh = items.find(item.id) ?? item;
  items.update(tabId, { ...fresh, key });
}

/** The Markdown's edit as the stretch that changed: what it was and what it became, from the first differing character. */
export function markdownStep(before: string, after: string): UndoStep {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (end < shorter - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  // Never split a surrogate pair: the stretch starts and ends on whole characters.
  if (start > 0 && /[\ud800-\udbff]/.test(before.charAt(start - 1))) start--;
  if (end > 0 && /[\udc00-\udfff]/.test(before.charAt(before.length - end))) end--;
  return { do: "markdown", at: start, before: before.slice(start, before.length - end), after: after.slice(start, after.length - end) };
}

/** `revert_note_change`: the agent takes a change back by its version. */
export const REVERT_CHANGE: KeyedWrite<"revert_change", Input<"revert_change">, RevertTarget> = {
  tool: "revert_change",
  fields: ["version"],
  validate: validateTarget,
  prepare: (i) => ok({ version: i.version }),
  apply: (ctx, meta, i, version) => {
    const done = revert(ctx, meta, i.version, version);
    if (!done.ok) return done;
    const { steps, touched } = done.value;
    const result = { note_id: ctx.id, reverted_version: i.version, version, replayed: false, arguments_differ: false, ...touched };
    return ok({ commit: true, meta: done.value.meta, result, touched, undo: steps, reverts: done.value.reverting });
  },
};

/** The person takes a change back, from the activity feed. */
export const UNDO_CHANGE: PersonChange<Input<"undo_change">> = {
  name: "undo_change",
  fields: ["version"],
  validate: (i, checks) => {
    validateTarget(i, checks);
    // A revert is made from what the person saw: it always names the version it was made at.
    if (i.expected_version === undefined) checks.add("expected_version", "required: the Note's version you saw the change at");
  },
  apply: (ctx, meta, i) => {
    const done = revert(ctx, meta, i.version, nextVersion(meta));
    if (!done.ok) return done;
    const { steps, touched } = done.value;
    const tab = touched.tab_id === undefined ? null : ctx.store.tab(touched.tab_id);
    return ok({ meta: done.value.meta, touched, undo: steps, reverts: done.value.reverting, ...(tab === null ? {} : { tab: summary(tab) }) });
  },
};

/** The answer of revert_note_change. */
export interface RevertedChange extends Touched {
  note_id: string;
  /** The change taken back. */
  reverted_version: number;
  version: number;
  replayed: boolean;
  arguments_differ: boolean;
  current_version?: number;
}

/** A text in a change's detail: at most this many UTF-16 units, the full length said beside it. */
export const DETAIL_TEXT = 2000;
/** Items a change's detail shows at most. */
export const DETAIL_ITEMS = 20;

/** One item a change touched, before and after it. */
export interface ChangeItem {
  item: "slide" | "row" | "tab" | "columns" | "markdown" | "title" | "source" | "file";
  id?: string;
  tab_id?: string;
  change: "added" | "updated" | "deleted" | "moved" | "renamed";
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** The full length of each text clipped here, by its path (`before.body`). */
  full_lengths?: Record<string, number>;
}

export interface ChangeDetail {
  note_id: string;
  /** The Note's version now. */
  version: number;
  change: ChangeEntry;
  items: ChangeItem[];
  /** Items the change touched beyond those shown. */
  items_omitted?: number;
}

/** `GET /api/v1/notes/:id/changes/:version`: the entry, and the before and after of each item it touched, bounded. */
export function readChange(ctx: NoteContext, meta: NoteMeta, target: number): Result<ChangeDetail> {
  const found = ctx.store.change(target);
  if (found === null) {
    return fail({
      code: "change_not_found",
      message: `No change ${target} in this Note's log. GET /api/v1/notes/{note_id}/changes lists the changes it keeps.`,
      version: target,
      oldest_version: ctx.store.oldestChange(),
      current_version: meta.version,
    });
  }
  const [change] = markRevertible(ctx.store, [{ entry: found.entry, touch: found.undo?.touch ?? null }]) as [ChangeEntry];
  const items: ChangeItem[] = [];
  let omitted = 0;
  const add = (item: ChangeItem) => {
    if (items.length < DETAIL_ITEMS) items.push(clipped(item));
    else omitted++;
  };
  for (const step of found.undo?.steps ?? []) describe(ctx.store, step, add);
  return ok({ note_id: ctx.id, version: meta.version, change, items, ...(omitted > 0 ? { items_omitted: omitted } : {}) });
}

function describe(store: NoteStore, step: UndoStep, add: (item: ChangeItem) => void): void {
  switch (step.do) {
    case "slide_fields":
      return add({ item: "slide", id: step.id, tab_id: step.tab, change: "updated", before: step.before, after: step.after });
    case "row_cells":
      return add({ item: "row", id: step.id, tab_id: step.tab, change: "updated", before: { cells: step.before }, after: { cells: step.after } });
    case "item_place":
      return add({ item: step.what, id: step.id, tab_id: step.tab, change: "moved", before: { after_id: step.before }, after: { after_id: step.after } });
    case "items_add":
    case "items_remove": {
      const items = sequence(store, step.what);
      for (const [i, id] of step.ids.entries()) {
        if (i >= DETAIL_ITEMS) {
          add({ item: step.what, id, tab_id: step.tab, change: "added" });
          continue;
        }
        // What the item holds now, wherever it is (its tab, or a trash): for an added one its content, for a deleted one what it was.
        const now = items.find(id) as (Keyed<Record<string, unknown>> & { tab_id: string }) | null;
        const content = now === null ? null : contentOf(now);
        if (step.do === "items_add") add({ item: step.what, id, tab_id: step.tab, change: "added", before: null, after: content });
        else add({ item: step.what, id, tab_id: step.tab, change: "deleted", before: content, after: null });
      }
      return;
    }
    case "tab_add":
      return add({ item: "tab", id: step.tab.id, change: "added", before: null, after: tabOf(step.tab) });
    case "tab_remove":
      return add({ item: "tab", id: step.tab.id, change: "deleted", before: tabOf(step.tab), after: null });
    case "tab_label":
      return add({ item: "tab", id: step.tab, change: "renamed", before: { label: step.before }, after: { label: step.after } });
    case "tab_place":
      return add({ item: "tab", id: step.tab, change: "moved", before: { position: step.before }, after: { position: step.after } });
    case "columns_add":
      return add({ item: "columns", tab_id: step.tab, change: "added", before: null, after: { columns: step.columns } });
    case "columns_remove":
      return add({ item: "columns", tab_id: step.tab, change: "deleted", before: { columns: step.columns }, after: null });
    case "markdown":
      return add({ item: "markdown", id: "markdown", change: "updated", before: { at: step.at, text: step.before }, after: { at: step.at, text: step.after } });
    case "title":
      return add({ item: "title", change: "renamed", before: { title: step.before }, after: { title: step.after } });
    case "source_add":
    case "source_remove": {
      const source = { title: step.source.title, url: step.source.url, description: step.source.description };
      return add({ item: "source", id: `source-${step.source.seq}`, change: step.do === "source_add" ? "added" : "deleted", before: step.do === "source_add" ? null : source, after: step.do === "source_add" ? source : null });
    }
    case "file_add":
    case "file_remove": {
      const file = { name: step.file.name, media_type: step.file.media_type, size_bytes: step.file.size_bytes };
      return add({ item: "file", id: `file-${step.file.seq}`, change: step.do === "file_add" ? "added" : "deleted", before: step.do === "file_add" ? null : file, after: step.do === "file_add" ? file : null });
    }
  }
}

function contentOf(item: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, key: _key, tab_id: _tab, ...content } = item;
  return content;
}

function tabOf(tab: TabRow): Record<string, unknown> {
  return { type: tab.type, label: tab.label, position: tab.position };
}

/** The item with every text over DETAIL_TEXT clipped, its full length said in full_lengths. */
function clipped(item: ChangeItem): ChangeItem {
  const lengths: Record<string, number> = {};
  const clip = (value: unknown, path: string): unknown => {
    if (typeof value === "string") {
      if (value.length <= DETAIL_TEXT) return value;
      lengths[path] = value.length;
      const end = /[\ud800-\udbff]/.test(value.charAt(DETAIL_TEXT - 1)) ? DETAIL_TEXT - 1 : DETAIL_TEXT;
      return value.slice(0, end);
    }
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, clip(v, `${path}.${name}`)]));
    }
    return value;
  };
  const out: ChangeItem = { ...item };
  if (item.before !== undefined && item.before !== null) out.before = clip(item.before, "before") as Record<string, unknown>;
  if (item.after !== undefined && item.after !== null) out.after = clip(item.after, "after") as Record<string, unknown>;
  if (Object.keys(lengths).length > 0) out.full_lengths = lengths;
  return out;
}

/** The error a revert can answer besides the pipeline's. */
export type RevertError = Extract<NoteError, { code: "revert_conflict" | "change_not_found" | "not_revertible" }>;

export type { Caller };
