/**
 * Edits of a tab's content: a deck's slides, a Sheet's rows and columns. One
 * table of operations, each naming its slide or row by exact ID, run by the
 * agent's keyed-write pipeline (edit_note_tab) and by the person's (the app's
 * routes, which may also move a slide or a row).
 */
import { AGENT_EDITS, PERSON_EDITS, type Input, type TabEditFields, type TabEditName } from "../commands.js";
import type { NoteContext } from "../context.js";
import { wrongTabType } from "../errors.js";
import { asGiven, type KeyedWrite } from "../pipeline/keyed-write.js";
import type { PersonChange } from "../pipeline/person-change.js";
import { fail, ok, type Result } from "../result.js";
import { SHEET_EDITS } from "./sheets.js";
import { SLIDE_EDITS } from "./slides.js";
import type { NoteMeta, TabRow } from "../store.js";
import { findTab, summary } from "./find.js";
import type { Checks } from "../validate.js";
import type { UndoStep } from "../undo.js";

/** What an edit did: the Note's meta and the tab after it, and the slides or rows it touched. */
interface EditDone {
  meta: NoteMeta;
  /** The tab as it is to be written; the very object given when its row does not change. */
  tab: TabRow;
  /** The slides or rows added, changed or deleted, in order. */
  ids: string[];
  /** How many of them are new. */
  added: number;
  /** Nothing changed (an update to what is there, a move to where it is). */
  unchanged?: boolean;
  /** What takes it back (undo.ts). */
  undo?: UndoStep[];
}

/** One operation's rules: module-level data, in SLIDE_EDITS and SHEET_EDITS. */
export interface TabEdit {
  /** The kind of tab it edits. */
  readonly tabType: "slides" | "sheet";
  /** The fields it takes besides tab_id and operation; every other edit field is refused. */
  readonly fields: readonly string[];
  validate: (input: Readonly<Record<string, unknown>>, checks: Checks) => void;
  /** The target checks and the change, on a tab of its type; runs only when every argument check passed. */
  apply: (ctx: NoteContext, meta: NoteMeta, tab: TabRow, input: TabEditFields) => Result<EditDone>;
}

const EDITS: Readonly<Record<TabEditName, TabEdit>> = { ...SLIDE_EDITS, ...SHEET_EDITS };

/** edit_note_tab's fields in its first release, in the order its fingerprint hashes them. */
const FIRST_FIELDS = ["tab_id", "operation", "title", "body", "notes", "slides"] as const;
/** The agent's fields since: hashed only when given (keyed-write.ts), so older records still match. */
const LATER_FIELDS = ["slide_id", "rows", "row_id", "cells", "columns"] as const;
/** Every edit's fields; after_id moves an item, which is the person's alone. */
const EDIT_FIELDS = [...FIRST_FIELDS, ...LATER_FIELDS, "after_id"] as const;

function validateEdit(input: Readonly<Record<string, unknown>>, checks: Checks, allowed: readonly TabEditName[]): void {
  checks.tabId("tab_id", input.tab_id);
  checks.oneOf("operation", input.operation, allowed);
  if (!allowed.includes(input.operation as TabEditName)) return;
  const name = input.operation as TabEditName;
  const edit = EDITS[name];
  for (const field of EDIT_FIELDS.slice(2)) {
    if (input[field] !== undefined && !edit.fields.includes(field)) {
      checks.add(field, `not allowed with ${name}, which takes ${edit.fields.map((f) => `\`${f}\``).join(", ")}`);
    }
  }
  edit.validate(input, checks);
}

/** Finds the tab by exact ID, checks its type, runs the edit, and writes the tab's row when it changed. */
function runEdit(ctx: NoteContext, meta: NoteMeta, input: TabEditFields & { operation: TabEditName }): Result<EditDone> {
  const found = findTab(ctx.store, input.tab_id);
  if (!found.ok) return found;
  const tab = found.value;
  const edit = EDITS[input.operation];
  if (tab.type !== edit.tabType) {
    return fail(wrongTabType(tab, [edit.tabType], `Tab "${tab.id}" is a ${tab.type} tab; ${input.operation} edits a ${edit.tabType} tab.`));
  }
  const done = edit.apply(ctx, meta, tab, input);
  if (done.ok && done.value.tab !== tab) ctx.store.updateTab(done.value.tab);
  return done;
}

/** `edit_note_tab`: one edit of the slides or Sheet tab with this exact ID. */
export const EDIT_TAB: KeyedWrite<"edit_tab", Input<"edit_tab">, Input<"edit_tab">> = {
  tool: "edit_tab",
  fields: FIRST_FIELDS,
  laterFields: LATER_FIELDS,
  validate: (i, checks) => validateEdit(i, checks, AGENT_EDITS),
  prepare: asGiven,
  apply: (ctx, meta, i, version) => {
    const done = runEdit(ctx, meta, i);
    if (!done.ok) return done;
    const { tab, ids, added, unchanged } = done.value;
    // A change that changes nothing keeps the version (other writers stay current); its key still records
    // the answer, so a resend after the Note moved on gets it back, as the key promises.
    const at = unchanged === true ? meta.version : version;
    // Written out whole, not spread from a common part: see summary().
    const result =
      tab.type === "slides"
        ? { note_id: ctx.id, tab_id: tab.id, operation: i.operation, version: at, replayed: false, arguments_differ: false, slides_added: added, slide_ids: ids, slide_count: tab.slide_count }
        : { note_id: ctx.id, tab_id: tab.id, operation: i.operation, version: at, replayed: false, arguments_differ: false, row_ids: ids, row_count: tab.row_count, columns: tab.columns };
    if (unchanged === true) return ok({ commit: false, answer: result, recordKey: true });
    return ok({ commit: true, meta: done.value.meta, result, names: { tab_label: tab.label }, ...(done.value.undo === undefined ? {} : { undo: done.value.undo }) });
  },
};

/** The person's edit of a tab's content, through the app's routes: the agent's edits, and moves. */
export const CHANGE_TAB: PersonChange<Input<"change_tab">> = {
  name: "change_tab",
  fields: EDIT_FIELDS,
  validate: (i, checks) => validateEdit(i, checks, PERSON_EDITS),
  apply: (ctx, meta, i) => {
    const done = runEdit(ctx, meta, i);
    if (!done.ok) return done;
    const { tab, ids, unchanged } = done.value;
    if (unchanged === true) return ok("unchanged");
    return ok({ meta: done.value.meta, tab: summary(tab), ...(tab.type === "slides" ? { slide_ids: ids } : { row_ids: ids }), ...(done.value.undo === undefined ? {} : { undo: done.value.undo }) });
  },
};
