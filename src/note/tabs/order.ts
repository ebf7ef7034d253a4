/**
 * The order of a tab's items (a deck's slides, a Sheet's rows) as integer
 * keys with gaps. Appending takes the next key after the last; deleting
 * leaves a gap; moving takes a key between two neighbours. No write shifts
 * the items after it, so a call's cost stays bounded by the items it touches,
 * not by the tab's size. Only when two neighbours' keys are adjacent does a
 * move give the whole tab fresh keys (the person's moves only, and rarely:
 * each gap takes ten moves into it).
 */
import { invalidArguments } from "../errors.js";
import { fail, ok, type Result } from "../result.js";
import type { Keyed, Sequence } from "../store.js";

/** The distance between two appended items' keys. */
export const KEY_GAP = 1024;

/** Keys for `count` items appended after the item with key `last` (null: an empty tab). */
export function appendKeys(last: number | null, count: number): number[] {
  const first = last === null ? 0 : last + KEY_GAP;
  return Array.from({ length: count }, (_, i) => first + i * KEY_GAP);
}

/** The key that puts an item right after the item with key `after` (null: first in the tab), or null when no key is free there. */
export function keyToFollow<T extends { id: string }>(items: Sequence<T>, tabId: string, after: number | null): number | null {
  const next = items.keyAfter(tabId, after);
  if (after === null) return next === null ? 0 : next - KEY_GAP;
  if (next === null) return after + KEY_GAP;
  const between = Math.floor((after + next) / 2);
  return between > after && between < next ? between : null;
}

/**
 * Moves `item` to right after `after` (null: first in the tab). Answers whether
 * anything moved: an item already in that place stays, and writes nothing.
 */
export function moveItem<T extends { id: string }>(items: Sequence<T>, tabId: string, item: Keyed<T>, after: Keyed<T> | null, path: string): Result<boolean> {
  if (after !== null && after.id === item.id) {
    return fail(invalidArguments([{ path, problem: "names the item being moved; name the one it should follow, or null to move it first" }]));
  }
  if (items.keyAfter(tabId, after?.key ?? null) === item.key) return ok(false);
  let key = keyToFollow(items, tabId, after?.key ?? null);
  if (key === null) {
    // No free key between the two neighbours: fresh keys for the whole tab, then there is room.
    const rekeyed = rekey(items, tabId);
    const afterKey = rekeyed.find((it) => it.id === after?.id)?.key ?? null;
    // Every gap is KEY_GAP now and the item is not already there, so a key is free.
    key = keyToFollow(items, tabId, afterKey) as number;
  }
  items.update(tabId, { ...item, key });
  return ok(true);
}

/**
 * Gives every item of the tab a fresh key, in order, all above the keys in use
 * (so no new key meets an old one on the way); returns the items as rewritten.
 */
export function rekey<T extends { id: string }>(items: Sequence<T>, tabId: string): Keyed<T>[] {
  const all = items.all(tabId);
  const keys = appendKeys(all.at(-1)?.key ?? null, all.length);
  return all.map((item, i) => {
    const moved = { ...item, key: keys[i] as number };
    items.update(tabId, moved);
    return moved;
  });
}
