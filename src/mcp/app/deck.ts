/**
 * @module
 * What the deck preview shows, decided from what the host hands it: the tool's
 * arguments and result, and the read_note_tab answers it asks the host for.
 * Pure (no DOM): the host's messages are unknown JSON, narrowed here; the
 * Note's own types, imported as types only, say what a well-formed one holds.
 */
import type { AGENT_EDITS, CreatedTab, EditedTab, SlideOutput, TabContent, TabType } from "../../note/index.js";

/** One slide as shown; `id` is null for an outline the Note has not confirmed. */
export interface PreviewSlide {
  id: string | null;
  /** 1-based, as a person counts. */
  number: number;
  title: string;
  body: string;
  notes: string;
}

export type Preview =
  | { kind: "deck"; label: string; caption: string; slides: PreviewSlide[] }
  /** One line instead of a deck: not a deck, a failed call, or waiting. */
  | { kind: "message"; text: string };

/** What to do with a tool result: show something now, or read the deck back through the host first. */
type Step =
  | { show: Preview }
  | {
      read: { note_id: string; tab_id: string };
      /** Shown while the host answers (it may ask the person first). */
      meanwhile: Preview;
      /** Shown when the host refuses the read or it fails. */
      fallback: Preview;
    };

/** Asks the host to call read_note_tab with these arguments; answers the tool's result. */
export type ReadTab = (args: { note_id: string; tab_id: string; cursor?: string }) => Promise<unknown>;

type Json = Record<string, unknown>;

const TYPE_NAMES: Record<TabType, string> = { markdown: "Markdown", files: "Files", sources: "Sources", slides: "slides", sheet: "Sheet" };
const SHEET_EDITS: ReadonlySet<string> = new Set<(typeof AGENT_EDITS)[number]>(["rows_append", "row_update", "row_delete", "columns_add"]);
/**
 * A deck is read back a page at a time, each of one slide at least: the largest
 * (LIMITS.slidesPerTab, which the unit test holds this to) takes no more pages.
 * Not imported: every limit would come into the page with it.
 */
const MAX_PAGES = 500;

export const WAITING: Preview = { kind: "message", text: "Waiting for the deck…" };

/** The preview of a tool's arguments, before its result: a create's outline, as sent. */
export function previewOfInput(args: unknown): Preview | null {
  if (!isObject(args) || args.tab_type !== "slides") return null;
  const outline = outlineOf(args.slides, null);
  return deck(labelOf(args.label), "The outline being written…", outline);
}

/** What a tool result calls for (read_note_tab, create_note_tab, edit_note_tab); `args` are the call's arguments, if the host sent them. */
export function stepOfResult(result: unknown, args: unknown): Step {
  if (isObject(result) && result.isError === true) return { show: message(`No deck to show: ${errorOf(result)}`) };
  const value = valueOf(result);
  if (value === null) return { show: message("No deck to show: the result holds nothing this preview can read.") };
  if (isObject(value.tab)) return { show: previewOfPages([value]) };
  if (typeof value.note_id !== "string" || typeof value.tab_id !== "string") return { show: message("No deck to show in this result.") };
  const read = { note_id: value.note_id, tab_id: value.tab_id };
  if (value.tab_type === "sheet") return { show: message(`“${labelOf(value.label)}” is a Sheet tab, not a deck.`) };
  if ((typeof value.operation === "string" && SHEET_EDITS.has(value.operation)) || Array.isArray(value.row_ids)) return { show: message("This edit changed a Sheet tab, not a deck.") };
  if (value.tab_type === "slides") {
    // A create's outline with the IDs the Note gave it, in deck order.
    const created = value as Partial<Extract<CreatedTab, { tab_type: "slides" }>>;
    const ids = Array.isArray(created.slide_ids) ? created.slide_ids : [];
    const outline = outlineOf(isObject(args) ? args.slides : undefined, ids);
    const label = labelOf(created.label);
    return {
      read,
      meanwhile: deck(label, "The outline as written; reading the deck back…", outline),
      fallback: deck(label, "The outline as written (the host did not let this preview read the deck back).", outline),
    };
  }
  return {
    read,
    meanwhile: message("The deck changed; reading it back…"),
    fallback: message("The deck changed, but the host did not let this preview read it back."),
  };
}

/**
 * Reads a whole deck through the host, page after page (`next_cursor`), and
 * answers its preview. Throws when a read fails: the caller shows its fallback.
 */
export async function readDeck(readTab: ReadTab, target: { note_id: string; tab_id: string }): Promise<Preview> {
  const pages: Json[] = [];
  let cursor: string | null = null;
  do {
    const result = await readTab(cursor === null ? target : { ...target, cursor });
    if (isObject(result) && result.isError === true) throw new Error(errorOf(result));
    const page = valueOf(result);
    if (page === null || !isObject(page.tab)) throw new Error("read_note_tab answered no tab");
    pages.push(page);
    cursor = page.tab.type === "slides" && typeof page.next_cursor === "string" ? page.next_cursor : null;
  } while (cursor !== null && pages.length < MAX_PAGES);
  return previewOfPages(pages);
}

/** The preview of read_note_tab answers of one tab, in order: a deck, or one line for another kind of tab. */
function previewOfPages(pages: Json[]): Preview {
  const first = pages[0] as Partial<TabContent>;
  const tab = first.tab;
  const label = labelOf(tab?.label);
  if (tab?.type !== "slides") {
    const kind = tab !== undefined && Object.hasOwn(TYPE_NAMES, tab.type) ? TYPE_NAMES[tab.type] : "other";
    return message(`“${label}” is a ${kind} tab, not a deck.`);
  }
  const slides = pages.flatMap((page) => (Array.isArray(page.slides) ? (page.slides as unknown[]) : [])).flatMap(slideOf);
  const total = typeof tab.slide_count === "number" ? tab.slide_count : slides.length;
  return deck(label, captionOf(slides, total), slides);
}

function captionOf(slides: PreviewSlide[], total: number): string {
  if (slides.length === 0) return total === 0 ? "An empty deck." : `None of its ${total} slides on this page.`;
  if (slides.length === total) return total === 1 ? "1 slide" : `${total} slides`;
  return `Slides ${slides[0]?.number}–${slides.at(-1)?.number} of ${total}`;
}

function slideOf(given: unknown): PreviewSlide[] {
  if (!isObject(given)) return [];
  const slide = given as Partial<SlideOutput>;
  if (typeof slide.id !== "string" || typeof slide.index !== "number") return [];
  return [{ id: slide.id, number: slide.index + 1, title: textOf(slide.title), body: textOf(slide.body), notes: textOf(slide.notes) }];
}

/** An outline as a call sent it (`{title, body?, notes?}[]`); `ids` pairs each slide with its ID when the Note answered as many. */
function outlineOf(given: unknown, ids: readonly unknown[] | null): PreviewSlide[] {
  const outline = Array.isArray(given) ? given.filter(isObject) : [];
  const paired = ids !== null && ids.length === outline.length;
  return outline.map((slide, i) => {
    const id = paired ? ids[i] : null;
    return { id: typeof id === "string" ? id : null, number: i + 1, title: textOf(slide.title), body: textOf(slide.body), notes: textOf(slide.notes) };
  });
}

/** A tool result's value: its `structuredContent`, else the JSON its first text block holds. */
function valueOf(result: unknown): Json | null {
  if (!isObject(result)) return null;
  if (isObject(result.structuredContent)) return result.structuredContent;
  const first: unknown = Array.isArray(result.content) ? result.content[0] : undefined;
  if (!isObject(first) || first.type !== "text" || typeof first.text !== "string") return null;
  try {
    const parsed: unknown = JSON.parse(first.text);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** An error result's words: the connector's `{error: {code, message}}`, else its text. */
function errorOf(result: Json): string {
  const parsed = valueOf(result);
  const error = parsed !== null && isObject(parsed.error) ? parsed.error : null;
  if (error !== null && typeof error.message === "string") return typeof error.code === "string" ? `${error.code}: ${error.message}` : error.message;
  const first: unknown = Array.isArray(result.content) ? result.content[0] : undefined;
  return isObject(first) && typeof first.text === "string" ? first.text : "the call failed.";
}

function deck(label: string, caption: string, slides: PreviewSlide[]): Preview {
  return { kind: "deck", label, caption, slides };
}

function message(text: string): Preview {
  return { kind: "message", text };
}

function labelOf(given: unknown): string {
  return typeof given === "string" && given !== "" ? given : "Untitled deck";
}

function textOf(given: unknown): string {
  return typeof given === "string" ? given : "";
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Fields<T> = T extends unknown ? keyof T : never;
// The write results' fields read above are the Note's: one renamed there fails `npm run typecheck` here.
(["note_id", "tab_id", "tab_type", "label", "slide_ids", "operation", "row_ids"] as const) satisfies readonly Fields<CreatedTab | EditedTab>[];
