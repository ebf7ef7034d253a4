/**
 * A deck's slides: the agent appends them (one, or an outline of up to 20),
 * and corrects or deletes one by its exact ID; the person may also move one,
 * or replace the whole deck in the app. Styling and layout stay with the
 * person: an agent cannot choose where a slide goes.
 */
import type { Input, SlideInput, SlideOutput } from "../commands.js";
import { limitExceeded, wrongTabType } from "../errors.js";
import { LIMITS } from "../limits.js";
import { deleteEdit, findItem, moveEdit, SLIDES } from "./items.js";
import { appendKeys } from "./order.js";
import type { PersonChange } from "../pipeline/person-change.js";
import { fail, ok, type Result } from "../result.js";
import type { Keyed, NoteMeta, NoteStore, Slide, TabRow } from "../store.js";
import type { TabEdit } from "./edit.js";
import { newSlideId } from "./ids.js";
import { findTab, summary } from "./find.js";
import { SLIDE_FIELDS } from "../validate.js";
import { trashOf, type SlideFields, type UndoStep } from "../undo.js";
import { nextVersion } from "../pipeline/version.js";

/** The slide with exactly this ID in this deck. Never an index, never a title. */
function findSlide(store: NoteStore, tab: TabRow, slideId: string): Result<Keyed<Slide>> {
  return findItem(SLIDES, store, tab, slideId);
}

/** Appends slides to a deck: new IDs from the Note's counter, keys after its last slide. */
function appendSlides(store: NoteStore, nowMs: number, meta: NoteMeta, tab: TabRow, given: readonly SlideInput[]) {
  const count = tab.slide_count + given.length;
  if (count > LIMITS.slidesPerTab) {
    return fail(limitExceeded("slides_per_tab", LIMITS.slidesPerTab, `Tab "${tab.id}" has ${tab.slide_count} slides; ${given.length} more would pass the limit`));
  }
  const { slides, meta: after } = newSlides(nowMs, meta, given, store.slides.lastKey(tab.id));
  store.slides.insert(tab.id, slides);
  const ids = slides.map((slide) => slide.id);
  return ok({ meta: after, tab: { ...tab, slide_count: count }, ids, added: slides.length, undo: [{ do: "items_add" as const, what: "slide" as const, tab: tab.id, ids }] });
}

/** The edits of a deck, each by exact slide ID (tab-edit.ts runs them). */
export const SLIDE_EDITS = {
  slide_add: {
    tabType: "slides",
    fields: SLIDE_FIELDS,
    validate: (i, checks) => checks.slide(i),
    apply: (ctx, meta, tab, i) => appendSlides(ctx.store, ctx.now(), meta, tab, [{ title: i.title ?? "", body: i.body, notes: i.notes }]),
  },
  slides_add_outline: {
    tabType: "slides",
    fields: ["slides"],
    validate: (i, checks) => checks.slides("slides", i.slides, 1, LIMITS.slidesPerCall),
    apply: (ctx, meta, tab, i) => appendSlides(ctx.store, ctx.now(), meta, tab, i.slides ?? []),
  },
  slide_update: {
    tabType: "slides",
    fields: ["slide_id", ...SLIDE_FIELDS],
    validate: (i, checks) => {
      checks.itemId("slide_id", i.slide_id);
      checks.slide(i, "", false);
      if (SLIDE_FIELDS.every((field) => i[field] === undefined)) checks.add("title", "give at least one of title, body or notes to change");
    },
    apply: (ctx, meta, tab, i) => {
      const found = findSlide(ctx.store, tab, i.slide_id as string);
      if (!found.ok) return found;
      const slide = found.value;
      const updated = { ...slide, title: i.title?.trim() ?? slide.title, body: i.body ?? slide.body, notes: i.notes ?? slide.notes };
      const same = SLIDE_FIELDS.every((field) => updated[field] === slide[field]);
      if (!same) ctx.store.slides.update(tab.id, updated);
      // What takes it back: the fields it changed, as they were and as they are.
      const before: SlideFields = {};
      const after: SlideFields = {};
      for (const field of SLIDE_FIELDS) {
        if (updated[field] === slide[field]) continue;
        before[field] = slide[field];
        after[field] = updated[field];
      }
      return ok({ meta, tab, ids: [slide.id], added: 0, unchanged: same, undo: [{ do: "slide_fields" as const, tab: tab.id, id: slide.id, before, after }] });
    },
  },
  slide_delete: deleteEdit(SLIDES),
  slide_move: moveEdit(SLIDES),
} satisfies Record<string, TabEdit>;

/** The person replaces a deck's slides in the app. */
export const SET_SLIDES: PersonChange<Input<"set_slides">> = {
  name: "set_slides",
  fields: ["tab_id", "slides"],
  validate: (i, checks) => {
    checks.tabId("tab_id", i.tab_id);
    checks.slides("slides", i.slides, 0, LIMITS.slidesPerTab);
  },
  apply: (ctx, meta, i) => {
    const found = findTab(ctx.store, i.tab_id);
    if (!found.ok) return found;
    const tab = found.value;
    if (tab.type !== "slides") return fail(wrongTabType(tab, ["slides"], `Tab "${tab.id}" is a ${tab.type} tab, not a slides tab.`));
    // A replaced deck's slides are new slides: new IDs from the counter, the old ones never reused.
    // The old ones go to this change's trash, where a revert finds them (undo.ts).
    const trash = trashOf(nextVersion(meta));
    const old = ctx.store.slides.all(tab.id).map((slide) => slide.id);
    ctx.store.slides.retab(tab.id, trash, null);
    const { slides, meta: after } = newSlides(ctx.now(), meta, i.slides, null);
    ctx.store.slides.insert(tab.id, slides);
    const updated = { ...tab, slide_count: slides.length };
    ctx.store.updateTab(updated);
    const ids = slides.map((slide) => slide.id);
    const undo: UndoStep[] = [
      { do: "items_remove", what: "slide", tab: tab.id, ids: old, trash, whole: true },
      { do: "items_add", what: "slide", tab: tab.id, ids, whole: true },
    ];
    return ok({ meta: after, tab: summary(updated), slide_ids: ids, undo });
  },
};

/**
 * New slides as stored, each with the next ID of this Note and the next key
 * after `last` (the deck's last key, null for none): the title trimmed, absent
 * text as empty text. Returns them and the meta with the counter moved past
 * them; the caller writes both.
 */
export function newSlides(nowMs: number, meta: NoteMeta, inputs: readonly SlideInput[], last: number | null): { slides: Keyed<Slide>[]; meta: NoteMeta } {
  const keys = appendKeys(last, inputs.length);
  const slides = inputs.map((input, i) => ({
    id: newSlideId(meta.next_slide_n + i, nowMs),
    key: keys[i] as number,
    title: input.title.trim(),
    body: input.body ?? "",
    notes: input.notes ?? "",
  }));
  return { slides, meta: { ...meta, next_slide_n: meta.next_slide_n + slides.length } };
}

/** Slides as a read answers them, each with its index in the deck. */
export function numbered(slides: readonly Slide[], first = 0): SlideOutput[] {
  return slides.map((slide, i) => ({ id: slide.id, index: first + i, title: slide.title, body: slide.body, notes: slide.notes }));
}
