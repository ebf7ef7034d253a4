/**
 * Tab identity. Fixed tabs are named by their type; every other tab gets
 * `{type}-{n}-{base36 millisecond time}` (the desktop app's form), with `n`
 * from a per-Note counter that never goes back, so an ID is never reused.
 */
export const FIXED_TABS = ["markdown", "files", "sources"] as const;
export const ADDABLE_TAB_TYPES = ["slides", "sheet"] as const;

type FixedTabType = (typeof FIXED_TABS)[number];
export type AddableTabType = (typeof ADDABLE_TAB_TYPES)[number];
export type TabType = FixedTabType | AddableTabType;

export const FIXED_TAB_LABELS: Record<FixedTabType, string> = {
  markdown: "Markdown",
  files: "Files",
  sources: "Sources",
};

export const DEFAULT_LABELS: Record<AddableTabType, string> = {
  slides: "Slides",
  sheet: "Sheet",
};

export function newTabId(type: AddableTabType, n: number, nowMs: number): string {
  return `${type}-${n}-${nowMs.toString(36)}`;
}

/**
 * Slide identity: `slide-{n}-{base36 millisecond time}`, with `n` from the
 * Note's own slide counter (meta.next_slide_n), which never goes back: a slide
 * ID is never reused in its Note, across deleted tabs and replaced decks.
 */
export function newSlideId(n: number, nowMs: number): string {
  return `slide-${n}-${nowMs.toString(36)}`;
}

/** Row identity: `row-{n}-{base36 millisecond time}`, from the Note's own row counter (meta.next_row_n), as slides'. */
export function newRowId(n: number, nowMs: number): string {
  return `row-${n}-${nowMs.toString(36)}`;
}

export function isTabType(value: string): value is TabType {
  return (FIXED_TABS as readonly string[]).includes(value) || (ADDABLE_TAB_TYPES as readonly string[]).includes(value);
}
