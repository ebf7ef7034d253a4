/**
 * A deck's slides and a Sheet's rows are both items of a tab, each named by
 * its exact ID: finding one, deleting one and (the person only) moving one
 * are the same rules for both, here once.
 */
import type { NoteError } from "../errors.js";
import { moveItem } from "./order.js";
import { fail, ok, type Result } from "../result.js";
import type { Keyed, NoteStore, Sequence, SheetRow, Slide, TabRow } from "../store.js";
import type { TabEdit } from "./edit.js";
import { isTrash, trashOf, type UndoStep } from "../undo.js";
import { nextVersion } from "../pipeline/version.js";

/** What tells slides from rows where either is named by ID. */
interface ItemKind<T extends { id: string }> {
  readonly what: "slide" | "row";
  readonly tabType: "slides" | "sheet";
  readonly items: (store: NoteStore) => Sequence<T>;
  readonly count: "slide_count" | "row_count";
  readonly hint: string;
  /** What a value given as an ID is instead (a title), when it is worth a look; null when not. */
  readonly misnamed?: (store: NoteStore, tab: TabRow, given: string) => string | null;
}

export const SLIDES: ItemKind<Slide> = {
  what: "slide",
  tabType: "slides",
  items: (store) => store.slides,
  count: "slide_count",
  hint:
    'Slide IDs look like "slide-12-mh8z1k2a": read_note_tab lists each slide\'s id, and every write that adds slides answers their slide_ids. ' +
    "A slide's index or title is not its ID.",
  // Only a value that is no slide ID's spelling is looked for among the titles: a mistyped ID reads no deck.
  misnamed: (store, tab, given) => (!given.startsWith("slide-") && store.slideTitled(tab.id, given) ? "is a slide title, not a slide ID" : null),
};

export const ROWS: ItemKind<SheetRow> = {
  what: "row",
  tabType: "sheet",
  items: (store) => store.rows,
  count: "row_count",
  hint: 'Row IDs look like "row-12-mh8z1k2a": read_note_tab lists each row\'s id, and every write that adds rows answers their row_ids. A row\'s index is not its ID.',
};

/** The item with exactly this ID in this tab. Never an index, never a title. */
export function findItem<T extends { id: string }>(kind: ItemKind<T>, store: NoteStore, tab: TabRow, id: string): Result<Keyed<T>> {
  const seen = kind.items(store).find(id);
  // An item a change deleted waits in its trash for a revert (undo.ts): to every other call it is gone.
  const found = seen !== null && isTrash(seen.tab_id) ? null : seen;
  if (found !== null && found.tab_id === tab.id) return ok(found);
  // Only the message looks further: an index, a title or another tab's item is named as such.
  const what =
    found !== null
      ? `is a ${kind.what} of tab "${found.tab_id}", not of tab "${tab.id}"`
      : /^\d+$/.test(id.trim())
        ? `is a ${kind.what} index, not a ${kind.what} ID`
        : (kind.misnamed?.(store, tab, id) ?? `is no ${kind.what} of tab "${tab.id}" (deleted, or never one)`);
  const message = `"${id}" ${what}. ${kind.hint}`;
  const error: NoteError =
    kind.what === "slide"
      ? { code: "slide_not_found", message, tab_id: tab.id, slide_id: id, hint: kind.hint }
      : { code: "row_not_found", message, tab_id: tab.id, row_id: id, hint: kind.hint };
  return fail(error);
}

/** `slide_delete`, `row_delete`: the item with this exact ID leaves its tab; its ID is never used again. */
export function deleteEdit<T extends { id: string }>(kind: ItemKind<T>): TabEdit {
  const field = `${kind.what}_id` as const;
  return {
    tabType: kind.tabType,
    fields: [field],
    validate: (i, checks) => checks.itemId(field, i[field]),
    apply: (ctx, meta, tab, i) => {
      const found = findItem(kind, ctx.store, tab, i[field] as string);
      if (!found.ok) return found;
      // Kept, not copied: the item moves to this change's trash, where a revert finds it (undo.ts).
      const trash = trashOf(nextVersion(meta));
      // The item it followed: where a revert puts it back, whatever keys the tab has by then.
      const afterId = kind.items(ctx.store).itemBefore(tab.id, found.value.key)?.id ?? null;
      kind.items(ctx.store).retab(tab.id, trash, [found.value.id]);
      const undo: UndoStep[] = [{ do: "items_remove", what: kind.what, tab: tab.id, ids: [found.value.id], trash, after_id: afterId }];
      return ok({ meta, tab: { ...tab, [kind.count]: tab[kind.count] - 1 }, ids: [found.value.id], added: 0, undo });
    },
  };
}

/** `slide_move`, `row_move` (the person's): the item goes right after `after_id`, or first for null. */
export function moveEdit<T extends { id: string }>(kind: ItemKind<T>): TabEdit {
  const field = `${kind.what}_id` as const;
  return {
    tabType: kind.tabType,
    fields: [field, "after_id"],
    validate: (i, checks) => {
      checks.itemId(field, i[field]);
      checks.itemId("after_id", i.after_id, true);
    },
    apply: (ctx, meta, tab, i) => {
      const found = findItem(kind, ctx.store, tab, i[field] as string);
      if (!found.ok) return found;
      const after = i.after_id === null || i.after_id === undefined ? ok(null) : findItem(kind, ctx.store, tab, i.after_id);
      if (!after.ok) return after;
      const was = kind.items(ctx.store).itemBefore(tab.id, found.value.key)?.id ?? null;
      const moved = moveItem(kind.items(ctx.store), tab.id, found.value, after.value, "after_id");
      if (!moved.ok) return moved;
      const undo: UndoStep[] = [{ do: "item_place", what: kind.what, tab: tab.id, id: found.value.id, before: was, after: after.value?.id ?? null, key_before: found.value.key }];
      return ok({ meta, tab, ids: [found.value.id], added: 0, unchanged: !moved.value, undo });
    },
  };
}
