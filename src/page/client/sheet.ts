/**
 * @module
 * A Sheet tab's panel: its rows a page at a time (`GET /tabs/:tab_id`), each
 * with its exact ID, and the person's edits through the person's API: add
 * columns, add a row, edit a row's cells in place, delete and move a row.
 *
 * Each Sheet keeps its own view (its rows as last read and the forms the
 * person has open), so a re-read, which the live socket asks for on every
 * change, redraws the rows around an open form and never over it: the
 * person's unsaved text stays as typed. Cells are text or numbers, chosen
 * per cell with a "number" checkbox (the rule: docs/api.md, "Cells from the
 * page").
 */
import { api, conflictInWords, write, type Conflict } from "./api.js";
import { type CellInput, type Cell, type Cells, cellOf as cellOfInput, changedCells as changedInputs, columnNames, sameCells } from "./cells.js";
import { $, h, say } from "./dom.js";
import { page, selectedTab } from "./state.js";
import type { ChangeEntry, Tab } from "./types.js";

interface Row {
  id: string;
  index: number;
  cells: Cells;
}

export interface SheetPage {
  version: number;
  columns: string[];
  rows: Row[];
  next_cursor: string | null;
}

/** One cell's field: its text and whether it is a number. */
interface Field {
  column: string;
  box: HTMLElement;
  text: HTMLInputElement | HTMLTextAreaElement;
  number: HTMLInputElement;
}

/** A row's open edit form. */
interface Editor {
  rowId: string;
  /** The row's cells when the form opened: what the person changed is what differs from these. */
  original: Cells;
  /** The row's cells the person has seen (at opening, or when they chose to save over a change): another change to the row is a conflict. */
  seen: Cells;
  /** The Note's version of the rows `seen` was taken from. */
  version: number;
  fields: Map<string, Field>;
  tr: HTMLTableRowElement;
  /** The row's number cell, each field's cell and the Save and Cancel buttons' cell, made once. */
  th: HTMLTableCellElement;
  tds: Map<string, HTMLTableCellElement>;
  save: HTMLButtonElement;
  cancel: HTMLButtonElement;
  actions: HTMLTableCellElement;
  /** The row under the form: its messages and the conflict's choices. */
  noteRow: HTMLTableRowElement;
  message: HTMLElement;
  conflictChoices: HTMLElement;
  busy: boolean;
}

interface SheetView {
  tabId: string;
  root: HTMLElement;
  hint: HTMLElement;
  region: HTMLElement;
  head: HTMLTableRowElement;
  body: HTMLTableSectionElement;
  addRow: HTMLFormElement;
  addRowFields: HTMLElement;
  addRowMessage: HTMLElement;
  addRowInputs: Map<string, Field>;
  addColumnsMessage: HTMLElement;
  columns: string[];
  rows: Row[];
  next: string | null;
  /** Whether the Sheet has been read at least once. */
  read: boolean;
  /** The Note's version the rows were read at. */
  readVersion: number;
  editors: Map<string, Editor>;
  /** The row whose deletion waits for its confirmation. */
  confirming: string | null;
  /** Bumped by every full re-read: an older answer (a "Load more" under way) is dropped. */
  generation: number;
  /** Where the keyboard goes after the next draw (a row's button by its row ID and action). */
  focusNext: { rowId: string; action: string } | { selector: string } | null;
}

/** Each Sheet's view, by tab ID: a form open in a Sheet is still there after a visit to another tab. */
const views = new Map<string, SheetView>();

/** What the person typed into a Sheet and has not saved (open rows, the add-row form), labelled: kept when the tab itself is deleted. */
export function unsavedInSheet(tabId: string): { label: string; text: string }[] {
  const view = views.get(tabId);
  if (view === undefined) return [];
  views.delete(tabId);
  return unsavedIn(view);
}

/** Whether any Sheet holds text the person typed and has not saved. */
export function sheetsUnsaved(): boolean {
  return [...views.values()].some((view) => unsavedIn(view).length > 0);
}

function unsavedIn(view: SheetView): { label: string; text: string }[] {
  const kept: { label: string; text: string }[] = [];
  for (const editor of view.editors.values()) {
    const at = view.rows.findIndex((row) => row.id === editor.rowId);
    for (const [column, field] of editor.fields) {
      if (field.text.value !== String(editor.original[column] ?? "")) kept.push({ label: `Row ${at < 0 ? editor.rowId : at + 1}, “${column}”`, text: field.text.value });
    }
  }
  for (const [column, field] of view.addRowInputs) if (field.text.value !== "") kept.push({ label: `New row, “${column}”`, text: field.text.value });
  return kept;
}

const path = (view: SheetView, rest = "") => `/tabs/${encodeURIComponent(view.tabId)}${rest}`;

// ---- reading ------------------------------------------------------------------------------

/** Reads the Sheet again from its first row, as many rows as were shown (at least a page), and redraws around the open forms. */
export async function reloadSheet(tab: Tab): Promise<void> {
  const view = viewOf(tab);
  attach(view);
  const generation = ++view.generation;
  const want = Math.max(100, view.rows.length);
  const rows: Row[] = [];
  let columns = view.columns;
  let cursor: string | null = null;
  let readVersion = Number.POSITIVE_INFINITY;
  do {
    const answer = await readPage(view, Math.min(500, want - rows.length), cursor);
    if (generation !== view.generation) return;
    if (!answer.ok) {
      if (page.selected === view.tabId) say(`Could not read the Sheet: ${answer.error.message}`);
      return;
    }
    columns = answer.value.columns;
    // Pages read across a change show the Sheet at two versions: the rows are as new as the oldest page.
    readVersion = Math.min(readVersion, answer.value.version);
    rows.push(...answer.value.rows);
    cursor = answer.value.next_cursor;
  } while (cursor !== null && rows.length < want);
  view.columns = columns;
  view.rows = rows;
  view.next = cursor;
  view.read = true;
  view.readVersion = readVersion;
  draw(view);
}

/** Reads the Sheet's next page and appends its rows ("Load more"). */
export async function loadSheetPage(tab: Tab): Promise<void> {
  const view = viewOf(tab);
  if (!view.read) return reloadSheet(tab);
  if (view.next === null) return;
  const generation = view.generation;
  const answer = await readPage(view, 100, view.next);
  if (generation !== view.generation) return;
  if (!answer.ok) return say(`Could not read the Sheet: ${answer.error.message}`);
  view.columns = answer.value.columns;
  view.readVersion = Math.min(view.readVersion, answer.value.version);
  const known = new Set(view.rows.map((row) => row.id));
  view.rows.push(...answer.value.rows.filter((row) => !known.has(row.id)));
  view.next = answer.value.next_cursor;
  draw(view);
}

function readPage(view: SheetView, limit: number, cursor: string | null) {
  const after = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
  return api<SheetPage>("GET", `${path(view)}?limit=${limit}${after}`);
}

/** Puts the view into the panel when its tab is the selected one. */
function attach(view: SheetView): void {
  if (page.selected !== view.tabId) return;
  const content = $("tab-content");
  if (content.firstChild !== view.root || content.childNodes.length !== 1) content.replaceChildren(view.root);
  page.nextCursor = view.next;
  $("load-more").hidden = view.next === null;
}

// ---- the view -----------------------------------------------------------------------------

function viewOf(tab: Tab): SheetView {
  const known = views.get(tab.id);
  if (known !== undefined) return known;
  const hint = h("p", { class: "hint sheet-hint" });
  const head = h("tr");
  const body = h("tbody");
  const region = h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `${tab.label} rows` }, h("table", { class: "sheet-table" }, h("thead", {}, head), body));

  const addRowFields = h("div", { class: "row sheet-fields" });
  const addRowMessage = h("p", { class: "form-message", role: "alert" });
  const addRow = h(
    "form",
    { class: "sheet-add-row", "aria-label": "Add a row" },
    h("h3", {}, "Add a row"),
    h("p", { class: "hint" }, "Tick “number” to save a cell as a number; an empty field leaves the cell empty."),
    addRowFields,
    h("div", { class: "row" }, h("button", { type: "submit" }, "Add row")),
    addRowMessage,
  );

  const columnsInput = h("input", { name: "columns", autocomplete: "off", "aria-describedby": `add-columns-hint-${tab.id}` });
  const addColumnsMessage = h("p", { class: "form-message", role: "alert" });
  const addColumns = h(
    "form",
    { class: "sheet-add-columns", "aria-label": "Add columns" },
    h("div", { class: "row" }, h("label", {}, "Add columns", columnsInput), h("button", { type: "submit" }, "Add columns")),
    h("p", { class: "hint", id: `add-columns-hint-${tab.id}` }, "One or more names, separated by commas (e.g. Item, Cost, Date); spaces around each name are dropped. New columns come after the ones there."),
    addColumnsMessage,
  );

  const view: SheetView = {
    tabId: tab.id,
    // The forms come before the rows: with a hundred rows (four buttons each) shown, they are still a few Tab presses away.
    root: h("div", { class: "sheet", "data-sheet-id": tab.id }, hint, addRow, addColumns, region),
    hint,
    region,
    head,
    body,
    addRow,
    addRowFields,
    addRowMessage,
    addRowInputs: new Map(),
    addColumnsMessage,
    columns: tab.columns ?? [],
    rows: [],
    next: null,
    read: false,
    readVersion: 0,
    editors: new Map(),
    confirming: null,
    generation: 0,
    focusNext: null,
  };
  addRow.addEventListener("submit", (event) => {
    event.preventDefault();
    submitRow(view);
  });
  // A refusal's words stay until the person changes what was refused.
  addRow.addEventListener("input", () => {
    addRowMessage.textContent = "";
  });
  columnsInput.addEventListener("input", () => {
    addColumnsMessage.textContent = "";
  });
  addColumns.addEventListener("submit", (event) => {
    event.preventDefault();
    submitColumns(view, columnsInput);
  });
  views.set(tab.id, view);
  draw(view);
  return view;
}

/** Draws the view from its rows, keeping every open form (and the keyboard) where it was. */
function draw(view: SheetView): void {
  const focused = document.activeElement instanceof HTMLElement && view.root.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = focused === null ? null : keyOf(focused);
  const label = (page.note?.tabs.find((tab) => tab.id === view.tabId) ?? selectedTab())?.label ?? view.tabId;
  view.region.setAttribute("aria-label", `${label} rows`);
  const { columns, rows } = view;

  if (!view.read) view.hint.textContent = "Reading the Sheet…";
  else if (columns.length === 0) view.hint.textContent = "This Sheet has no columns yet. Add its columns below (for example: Item, Cost), then add rows.";
  else if (rows.length === 0) view.hint.textContent = "No rows yet. Add one with the form below.";
  else view.hint.textContent = "";
  view.hint.hidden = view.hint.textContent === "";
  view.region.hidden = columns.length === 0;
  view.addRow.hidden = columns.length === 0;

  view.head.replaceChildren(h("th", { scope: "col" }, "#"), ...columns.map((column) => h("th", { scope: "col" }, column)), h("th", { scope: "col", class: "actions" }, "Row actions"));

  const shown = new Set(rows.map((row) => row.id));
  const trs: HTMLTableRowElement[] = [];
  rows.forEach((row, at) => {
    const editor = view.editors.get(row.id);
    if (editor === undefined) trs.push(viewRow(view, row, at));
    else trs.push(...editorRows(view, editor, row));
  });
  // A row under an open form that is gone from the Sheet (deleted, or moved past the rows shown): the person's text stays.
  for (const editor of view.editors.values()) {
    if (shown.has(editor.rowId)) continue;
    trs.push(...editorRows(view, editor, null));
  }
  placeChildren(view.body, trs);
  if (view.read) syncAddRow(view);
  if (page.selected === view.tabId) {
    page.nextCursor = view.next;
    $("load-more").hidden = view.next === null;
  }

  const next = view.focusNext;
  view.focusNext = null;
  // Where the person's action said the keyboard goes next, unless they have since taken it elsewhere.
  const free = focused !== null || document.activeElement === null || document.activeElement === document.body;
  if (next !== null && free) focusIn(view, next);
  else if (focused !== null && focused.isConnected) {
    if (document.activeElement !== focused) focused.focus();
  } else if (focusKey !== null) focusIn(view, focusKey);
}

/**
 * Puts `nodes` into `parent` in order, moving only what is out of place: a node already in place
 * (an open form's row) is never taken out, so the keyboard and the caret stay in it.
 */
function placeChildren(parent: HTMLElement, nodes: readonly HTMLElement[]): void {
  const keep = new Set<Element>(nodes);
  for (const child of Array.from(parent.children)) if (!keep.has(child)) child.remove();
  nodes.forEach((node, i) => {
    const there = parent.children[i];
    if (there !== node) parent.insertBefore(node, there ?? null);
  });
}

function keyOf(element: HTMLElement): { rowId: string; action: string } | null {
  const rowId = element.closest<HTMLElement>("[data-row-id]")?.dataset.rowId;
  const action = element.dataset.action;
  return rowId === undefined || action === undefined ? null : { rowId, action };
}

function focusIn(view: SheetView, target: { rowId: string; action: string } | { selector: string }): void {
  let element: HTMLElement | null;
  if ("selector" in target) element = view.root.querySelector<HTMLElement>(target.selector);
  else {
    const tr = view.body.querySelector(`tr[data-row-id="${CSS.escape(target.rowId)}"]`);
    element = tr?.querySelector<HTMLElement>(`[data-action="${target.action}"]:not([disabled])`) ?? tr?.querySelector<HTMLElement>('[data-action="edit"]') ?? null;
    // The row is gone: the table keeps the keyboard.
    element ??= view.region;
  }
  element?.focus();
}

const isNumber = (cell: Cell | undefined): cell is number => typeof cell === "number";

/** A row as shown, with its buttons: edit, move up, move down, delete (after a confirmation). */
function viewRow(view: SheetView, row: Row, at: number): HTMLTableRowElement {
  const n = String(row.index + 1);
  const button = (action: string, text: string, label: string, onClick: () => void, disabled = false) => {
    const element = h("button", { type: "button", "data-action": action, "aria-label": label }, text);
    if (disabled) element.disabled = true;
    element.addEventListener("click", onClick);
    return element;
  };
  const confirming = view.confirming === row.id;
  const actions = h(
    "td",
    { class: "actions" },
    button("edit", "Edit", `Edit row ${n}`, () => openEditor(view, row.id)),
    button("up", "↑", `Move row ${n} up`, () => moveRow(view, row.id, -1), at === 0),
    button("down", "↓", `Move row ${n} down`, () => moveRow(view, row.id, 1), at === view.rows.length - 1),
    button("delete", confirming ? "Don’t delete" : "Delete", confirming ? `Don’t delete row ${n}` : `Delete row ${n}`, () => {
      view.confirming = confirming ? null : row.id;
      view.focusNext = { rowId: row.id, action: confirming ? "delete" : "confirm-delete" };
      draw(view);
    }),
  );
  if (confirming) {
    const yes = button("confirm-delete", `Yes, delete row ${n}`, `Yes, delete row ${n}`, () => deleteRow(view, row.id));
    yes.classList.add("danger");
    actions.append(yes);
  }
  const tr = h(
    "tr",
    { "data-row-id": row.id },
    h("th", { scope: "row" }, n),
    ...view.columns.map((column) => {
      const cell = row.cells[column];
      return h("td", isNumber(cell) ? { class: "num" } : {}, cell === undefined ? "" : String(cell));
    }),
    actions,
  );
  tr.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && view.confirming === row.id) {
      view.confirming = null;
      view.focusNext = { rowId: row.id, action: "delete" };
      draw(view);
    }
  });
  return tr;
}

/** A cell's field: a one-line input (a text area for text that holds line breaks) and its "number" checkbox. */
function newField(column: string, cell: Cell | undefined, name: string, asNumber: boolean): Field {
  const value = cell === undefined ? "" : String(cell);
  const text: HTMLInputElement | HTMLTextAreaElement = /[\r\n]/.test(value) ? h("textarea", { rows: "2", "aria-label": name }) : h("input", { "aria-label": name, autocomplete: "off" });
  text.value = value;
  const number = h("input", { type: "checkbox", "aria-label": `${name} is a number` });
  number.checked = asNumber;
  const box = h("div", { class: "cell-field" }, text, h("label", { class: "check" }, number, h("span", { "aria-hidden": "true" }, "number")));
  return { column, box, text, number };
}

/** What a field holds, for the rule in cells.ts. */
const inputOf = (field: Field): CellInput => ({ column: field.column, text: field.text.value, asNumber: field.number.checked });
const cellOf = (field: Field) => cellOfInput(inputOf(field));

/** The cells of the row's form that differ from `base`; a problem names its field. */
function changedCells(editor: Editor, base: Cells): { ok: true; cells: Record<string, Cell | null> } | { ok: false; problem: string; field: Field } {
  const result = changedInputs(Array.from(editor.fields.values(), inputOf), base);
  if (result.ok) return result;
  return { ok: false, problem: result.problem, field: editor.fields.get(result.column) as Field };
}

// ---- adding -------------------------------------------------------------------------------

/** The add-row form's fields, one per column; what was typed stays, a new column gets a field. */
function syncAddRow(view: SheetView): void {
  for (const column of view.columns) {
    if (view.addRowInputs.has(column)) continue;
    // Starts as the column's cell in the last row shown that has one: a number there, a number here.
    const last = [...view.rows].reverse().find((row) => row.cells[column] !== undefined)?.cells[column];
    const field = newField(column, undefined, column, isNumber(last));
    field.box.prepend(h("span", { class: "field-name", "aria-hidden": "true" }, column));
    field.box.classList.add("add-field");
    view.addRowInputs.set(column, field);
  }
  const boxes = view.columns.map((column) => (view.addRowInputs.get(column) as Field).box);
  if (boxes.length !== view.addRowFields.children.length || boxes.some((box, i) => view.addRowFields.children[i] !== box)) view.addRowFields.replaceChildren(...boxes);
}

function submitRow(view: SheetView): void {
  const cells: Cells = {};
  for (const column of view.columns) {
    const field = view.addRowInputs.get(column);
    if (field === undefined) continue;
    const result = cellOf(field);
    if (!result.ok) return refuse(view.addRowMessage, result.problem, field.text);
    if (result.cell !== null) cells[column] = result.cell;
  }
  if (Object.keys(cells).length === 0) return refuse(view.addRowMessage, "Type at least one cell: a row keeps at least one.", view.addRowInputs.get(view.columns[0] ?? "")?.text);
  view.addRowMessage.textContent = "";
  rowsStale();
  void write<{ version: number; row_ids: string[] }>("Add row", "POST", path(view, "/rows"), { rows: [cells] }, () => {
    // The fields empty for the next row; each "number" keeps what the person chose.
    for (const field of view.addRowInputs.values()) field.text.value = "";
    rowsStale();
  }).then((done) => {
    if (!done) view.addRowMessage.textContent = $("status").textContent ?? "";
  });
}

function submitColumns(view: SheetView, input: HTMLInputElement): void {
  const names = columnNames(input.value);
  if (names.every((name) => name === "")) return refuse(view.addColumnsMessage, "Add columns: type one or more names, separated by commas.", input);
  view.addColumnsMessage.textContent = "";
  rowsStale();
  void write("Add columns", "POST", path(view, "/columns"), { columns: names }, () => {
    input.value = "";
    rowsStale();
  }).then((done) => {
    if (!done) view.addColumnsMessage.textContent = $("status").textContent ?? "";
  });
}

/** Whatever a write's answer, the re-read that follows it reads the rows too (the socket may be slow or gone). */
function rowsStale(): void {
  page.contentStale = true;
}

function refuse(where: HTMLElement, problem: string, field?: HTMLElement): void {
  where.textContent = problem;
  say(problem);
  field?.focus();
}

// ---- editing ------------------------------------------------------------------------------

function openEditor(view: SheetView, rowId: string): void {
  const row = view.rows.find((r) => r.id === rowId);
  if (row === undefined || page.note === null) return;
  const message = h("p", { class: "form-message", role: "alert" });
  const conflictChoices = h("div", { class: "row" });
  conflictChoices.hidden = true;
  const editor: Editor = {
    rowId,
    original: { ...row.cells },
    seen: { ...row.cells },
    version: view.readVersion,
    fields: new Map(),
    tr: h("tr", { "data-row-id": rowId, class: "editing" }),
    th: h("th", { scope: "row" }),
    tds: new Map(),
    save: h("button", { type: "button", "data-action": "save" }, "Save"),
    cancel: h("button", { type: "button", "data-action": "cancel" }, "Cancel"),
    actions: h("td", { class: "actions" }),
    noteRow: h("tr", { class: "editing-note", "data-note-for": rowId }),
    message,
    conflictChoices,
    busy: false,
  };
  editor.tr.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      closeEditor(view, editor, "Row not changed: your edits were cancelled.");
    } else if (event.key === "Enter" && event.target instanceof HTMLInputElement && event.target.type !== "checkbox") {
      event.preventDefault();
      saveEditor(view, editor, false);
    }
  });
  editor.noteRow.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      closeEditor(view, editor, "Row not changed: your edits were cancelled.");
    }
  });
  editor.save.addEventListener("click", () => void saveEditor(view, editor, false));
  editor.cancel.addEventListener("click", () => closeEditor(view, editor, "Row not changed: your edits were cancelled."));
  editor.actions.append(editor.save, editor.cancel);
  const over = h("button", { type: "button", "data-action": "save-over" }, "Save mine over it");
  over.addEventListener("click", () => void saveEditor(view, editor, true));
  const discard = h("button", { type: "button", "data-action": "discard" }, "Discard mine");
  discard.addEventListener("click", () => closeEditor(view, editor, "Your edits to the row were discarded; it shows the Sheet as it is now."));
  conflictChoices.append(over, discard);
  editor.noteRow.append(h("td", {}, message, conflictChoices));
  view.editors.set(rowId, editor);
  view.confirming = null;
  const first = view.columns[0];
  view.focusNext = first === undefined ? null : { selector: `tr[data-row-id="${CSS.escape(rowId)}"] .cell-field :is(input, textarea)` };
  draw(view);
}

/** The editing row (its fields, kept across redraws) and the row of its messages under it. */
function editorRows(view: SheetView, editor: Editor, row: Row | null): HTMLTableRowElement[] {
  const n = row === null ? "–" : String(row.index + 1);
  const cells = view.columns.map((column) => {
    let field = editor.fields.get(column);
    if (field === undefined) {
      // A column added while the form is open: its field starts from the row's cell, as the others did.
      const cell = row?.cells[column];
      if (cell !== undefined) {
        editor.original[column] = cell;
        editor.seen[column] = cell;
      }
      field = newField(column, cell, "", isNumber(cell));
      editor.fields.set(column, field);
    }
    field.text.setAttribute("aria-label", `Row ${n}, ${column}`);
    field.number.setAttribute("aria-label", `Row ${n}, ${column} is a number`);
    let td = editor.tds.get(column);
    if (td === undefined) {
      td = h("td", {}, field.box);
      editor.tds.set(column, td);
    }
    return td;
  });
  editor.th.textContent = n;
  editor.save.setAttribute("aria-label", `Save row ${n}`);
  editor.cancel.setAttribute("aria-label", `Cancel editing row ${n}`);
  for (const button of editor.conflictChoices.querySelectorAll("button")) button.setAttribute("aria-label", `${button.textContent ?? ""}, row ${n}`);
  placeChildren(editor.tr, [editor.th, ...cells, editor.actions]);
  editor.noteRow.firstElementChild?.setAttribute("colspan", String(view.columns.length + 2));
  editor.noteRow.hidden = editor.message.textContent === "" && editor.conflictChoices.hidden;
  return [editor.tr, editor.noteRow];
}

function closeEditor(view: SheetView, editor: Editor, words: string): void {
  view.editors.delete(editor.rowId);
  view.focusNext = { rowId: editor.rowId, action: "edit" };
  say(words);
  draw(view);
}

function setMessage(view: SheetView, editor: Editor, text: string, conflict: boolean): void {
  editor.message.textContent = text;
  editor.conflictChoices.hidden = !conflict;
  draw(view);
}

/**
 * Saves the cells the person changed (from the cells the form opened with). When the row changed since
 * they saw it, nothing is sent unless they chose to save over it (`over`): the change is named instead,
 * their text kept.
 */
async function saveEditor(view: SheetView, editor: Editor, over: boolean): Promise<void> {
  if (editor.busy || page.note === null) return;
  const mine = changedCells(editor, editor.original);
  if (!mine.ok) {
    setMessage(view, editor, mine.problem, !editor.conflictChoices.hidden);
    say(mine.problem);
    mine.field.text.focus();
    return;
  }
  editor.busy = true;
  try {
    await sameVersion(view);
    if (page.note === null) return;
    const current = view.rows.find((row) => row.id === editor.rowId);
    if (over) {
      // The person has seen the other change and writes theirs over it: cells they did not change keep the other's.
      editor.seen = current === undefined ? {} : { ...current.cells };
      editor.version = view.readVersion;
    } else if (!sameCells(current?.cells, editor.seen)) {
      return showConflict(view, editor, await changesSince(editor));
    }
    if (Object.keys(mine.cells).length === 0) return closeEditor(view, editor, "Row not changed: nothing in it was edited.");
    let conflict: Conflict | null = null;
    rowsStale();
    const done = await write("Save row", "PATCH", path(view, `/rows/${encodeURIComponent(editor.rowId)}`), { cells: mine.cells }, () => {
      view.editors.delete(editor.rowId);
      view.focusNext = { rowId: editor.rowId, action: "edit" };
      rowsStale();
    }, (refused) => {
      conflict = refused;
    });
    if (done) return draw(view);
    if (conflict !== null) return showConflict(view, editor, conflict);
    // Refused for another reason (the server's words, e.g. a row that would have no cell left): the form stays.
    setMessage(view, editor, $("status").textContent ?? "Not saved.", false);
    editor.fields.values().next().value?.text.focus();
  } finally {
    editor.busy = false;
  }
}

/**
 * Brings the rows the page shows to the version the write will carry (the Note's read can be ahead of the
 * Sheet's while a re-read is under way): a change to the row is then either in the rows compared, or after
 * that version, where the server refuses the write with `version_conflict`.
 */
async function sameVersion(view: SheetView): Promise<void> {
  for (let tries = 0; tries < 3 && page.note !== null && view.readVersion !== page.note.version; tries += 1) {
    const tab = page.note.tabs.find((t) => t.id === view.tabId);
    if (tab !== undefined && view.readVersion < page.note.version) await reloadSheet(tab);
    else await page.reread();
  }
}

/** The changes to this row since the person saw it, from the change log (the page learnt of them by re-reading). */
async function changesSince(editor: Editor): Promise<Conflict> {
  const current = page.note?.version ?? editor.version;
  const answer = await api<{ changes: ChangeEntry[]; next_since_version: number | null; version: number }>("GET", `/changes?since_version=${editor.version}&limit=200`);
  if (!answer.ok) return { expected_version: editor.version, current_version: current, changes: [], changes_complete: false };
  const about = answer.value.changes.filter((entry) => entry.row_ids?.includes(editor.rowId) === true);
  const complete = answer.value.changes.at(-1)?.version === answer.value.version || answer.value.changes.length === 0;
  return { expected_version: editor.version, current_version: editor.version + about.length + (complete ? 0 : answer.value.version - editor.version - answer.value.changes.length), changes: about, changes_complete: complete };
}

function showConflict(view: SheetView, editor: Editor, conflict: Conflict): void {
  const gone = !view.rows.some((row) => row.id === editor.rowId);
  const what = conflict.changes.length === 0 && conflict.changes_complete ? "the Sheet changed" : conflictInWords(conflict);
  const text = `Not saved: this row was changed while you were editing it (${what}).${gone ? " The row is no longer in the Sheet." : ""} Your values are kept here: save them over it, or discard them to see the row as it is now.`;
  setMessage(view, editor, text, true);
  say(text);
  view.root.querySelector<HTMLElement>(`tr[data-note-for="${CSS.escape(editor.rowId)}"] [data-action="save-over"]`)?.focus();
}

// ---- deleting and moving ------------------------------------------------------------------

function deleteRow(view: SheetView, rowId: string): void {
  const at = view.rows.findIndex((row) => row.id === rowId);
  view.confirming = null;
  const neighbour = view.rows[at + 1] ?? view.rows[at - 1];
  rowsStale();
  void write("Delete row", "DELETE", path(view, `/rows/${encodeURIComponent(rowId)}`), {}, () => {
    view.focusNext = neighbour === undefined ? { selector: ".sheet-add-row :is(input, textarea)" } : { rowId: neighbour.id, action: "delete" };
    rowsStale();
  }).then((done) => {
    if (!done) draw(view);
  });
}

/** Moves a row one place up or down among the rows shown: after the row two above (or first), or after the row below. */
function moveRow(view: SheetView, rowId: string, delta: -1 | 1): void {
  const at = view.rows.findIndex((row) => row.id === rowId);
  if (at < 0) return;
  let afterId: string | null;
  if (delta < 0) {
    if (at === 0) return;
    afterId = at >= 2 ? (view.rows[at - 2] as Row).id : null;
  } else {
    const below = view.rows[at + 1];
    if (below === undefined) return;
    afterId = below.id;
  }
  rowsStale();
  void write("Move row", "PATCH", path(view, `/rows/${encodeURIComponent(rowId)}`), { after_id: afterId }, () => {
    view.focusNext = { rowId, action: delta < 0 ? "up" : "down" };
    rowsStale();
  });
}
