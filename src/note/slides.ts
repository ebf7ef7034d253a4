/**
 * A deck's slides: the agent appends them (one, or an outline of up to 20);
 * the person may replace the whole deck in the app. Positions, styling and
 * layout stay with the person: an agent cannot choose where a slide goes.
 */
import type { Input, SlideInput, SlideOutput } from "./commands.js";
import { limitExceeded, wrongTabType } from "./errors.js";
import { asGiven, type KeyedWrite } from "./keyed-write.js";
import { LIMITS } from "./limits.js";
import type { PersonChange } from "./person-change.js";
import { fail, ok } from "./result.js";
import type { NoteMeta, Slide } from "./store.js";
import { newSlideId } from "./tab-id.js";
import { findTab, summary } from "./tabs.js";

const EDIT_OPERATIONS = ["slide_add", "slides_add_outline"] as const;

/** `edit_note_tab`: appends slides to the slides tab with this exact ID. */
export const EDIT_TAB: KeyedWrite<"edit_tab", Input<"edit_tab">, Input<"edit_tab">> = {
  tool: "edit_tab",
  fields: ["tab_id", "operation", "title", "body", "notes", "slides"],
  validate: (i, checks) => {
    checks.tabId("tab_id", i.tab_id);
    checks.oneOf("operation", i.operation, EDIT_OPERATIONS);
    if (i.operation === "slide_add") {
      checks.slide(i);
      if (i.slides !== undefined) checks.add("slides", "not allowed with slide_add; use slides_add_outline");
    } else if (i.operation === "slides_add_outline") {
      checks.slides("slides", i.slides, 1, LIMITS.slidesPerCall);
      for (const field of ["title", "body", "notes"] as const) {
        if (i[field] !== undefined) checks.add(field, "not allowed with slides_add_outline; put slides in `slides`");
      }
    }
  },
  prepare: asGiven,
  apply: (ctx, meta, i, version) => {
    const found = findTab(ctx.store, i.tab_id);
    if (!found.ok) return found;
    const tab = found.value;
    if (tab.type !== "slides") {
      return fail(wrongTabType(tab, ["slides"], `Tab "${tab.id}" is a ${tab.type} tab; edit_note_tab adds slides to slides tabs only.`));
    }
    const given = i.operation === "slide_add" ? [{ title: i.title ?? "", body: i.body, notes: i.notes }] : (i.slides ?? []);
    const { slides: added, meta: after } = newSlides(ctx.now(), meta, given);
    const count = tab.slide_count + added.length;
    if (count > LIMITS.slidesPerTab) {
      return fail(limitExceeded("slides_per_tab", LIMITS.slidesPerTab, `Tab "${tab.id}" has ${tab.slide_count} slides; ${added.length} more would pass the limit`));
    }
    ctx.store.appendSlides(tab.id, tab.slide_count, added);
    ctx.store.updateTab({ ...tab, slide_count: count });
    const result = {
      note_id: ctx.id,
      tab_id: tab.id,
      slides_added: added.length,
      slide_ids: added.map((slide) => slide.id),
      slide_count: count,
      version,
      replayed: false,
      arguments_differ: false,
    };
    return ok({ commit: true, meta: after, result });
  },
};

/** The person replaces a deck's slides in the app. */
export const SET_SLIDES: PersonChange<Input<"set_slides">> = {
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
    const { slides, meta: after } = newSlides(ctx.now(), meta, i.slides);
    ctx.store.replaceSlides(tab.id, slides);
    const updated = { ...tab, slide_count: slides.length };
    ctx.store.updateTab(updated);
    return ok({ meta: after, tab: summary(updated) });
  },
};

/**
 * New slides as stored, each with the next ID of this Note: the title trimmed,
 * absent text as empty text. Returns them and the meta with the counter moved
 * past them; the caller writes both.
 */
export function newSlides(nowMs: number, meta: NoteMeta, inputs: readonly SlideInput[]): { slides: Slide[]; meta: NoteMeta } {
  const slides = inputs.map((input, i) => ({
    id: newSlideId(meta.next_slide_n + i, nowMs),
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
