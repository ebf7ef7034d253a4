/**
 * @module
 * A Slides tab's panel: its slides in order, each with its exact ID, and the
 * person's edits through their API (docs/api.md), each with the version the
 * person was looking at: a slide's title, body and notes edited in place
 * (only the fields changed are sent), a slide added at the end, deleted after
 * a confirmation, moved earlier or later (`after_id`).
 *
 * The list is redrawn on every read (the live socket re-reads on every
 * change), item by item: an open edit form is never replaced, so what the
 * person typed stays, and the focus stays where it was. A slide changed by
 * someone else while its form is open is a conflict, told in words with the
 * change that made it; the person saves theirs over it or discards theirs.
 */
import { LIMITS } from "../../note/limits.js";
import { conflictInWords, write, type Conflict } from "./api.js";
import { $, h, say } from "./dom.js";
import { bodyBlocks } from "./slide-body.js";
import { feed, page } from "./state.js";
import type { ChangeEntry, Tab } from "./types.js";

type Slide = NonNullable<Tab["slides"]>[number];
interface Fields {
  title: string;
  body: string;
  notes: string;
}
const FIELDS = ["title", "body", "notes"] as const;
const LABELS: Readonly<Record<keyof Fields, string>> = { title: "Title", body: "Body", notes: "Notes" };
const MAX: Readonly<Record<keyof Fields, number>> = { title: LIMITS.slideTitleLength, body: LIMITS.slideBodyLength, notes: LIMITS.slideNotesLength };

/** One open edit form and what it was opened on. */
interface Edit {
  slideId: string;
  form: HTMLFormElement;
  /** The slide when the form opened: the fields the person changed are those that differ from it. */
  original: Fields;
  /** The slide as the person last saw it: a difference now is someone else's change. */
  seen: Fields;
  seenVersion: number;
  /** Its place (1-based) and title, for the labels. */
  index: number;
  /** The slide was deleted while the form was open: the person's text is kept, to add as a new slide or discard. */
  gone: boolean;
  /** The conflict box is showing: Save waits for the person's choice. */
  conflicted: boolean;
  busy: boolean;
}

/** One deck's panel, kept while the page is open: its forms (and their text) survive a redraw and a visit to another tab. */
interface DeckView {
  tabId: string;
  root: HTMLDivElement;
  list: HTMLOListElement;
  empty: HTMLParagraphElement;
  items: Map<string, HTMLLIElement>;
  /** What each item was last drawn from: an unchanged slide is not redrawn. */
  drawn: Map<string, string>;
  edits: Map<string, Edit>;
  /** Slides whose "Yes, delete" is showing. */
  confirming: Set<string>;
  addForm: HTMLFormElement;
}

const views = new Map<string, DeckView>();
/** The control (by its data-key) that takes the focus after the next redraw, e.g. the Edit button after Save. */
let pendingFocus: string | null = null;

/** Shows the deck; called on every read. */
export function renderSlides(tab: Tab): void {
  const view = viewOf(tab.id);
  $("load-more").hidden = true;
  const content = $("tab-content");
  const focus = rememberFocus(view.root);
  if (content.firstElementChild !== view.root || content.childElementCount !== 1) content.replaceChildren(view.root);
  const slides = tab.slides ?? [];
  const wanted: HTMLLIElement[] = [];
  slides.forEach((slide, i) => {
    const li = itemOf(view, slide.id);
    const edit = view.edits.get(slide.id);
    if (edit !== undefined) {
      edit.index = i + 1;
      edit.gone = false;
      syncEdit(view, edit, slide);
    } else {
      drawSlide(view, li, slide, i, slides);
    }
    wanted.push(li);
  });
  // A form whose slide was deleted meanwhile stays, where it was, with the person's text.
  for (const edit of view.edits.values()) {
    if (slides.some((slide) => slide.id === edit.slideId)) continue;
    const li = itemOf(view, edit.slideId);
    if (!edit.gone) {
      edit.gone = true;
      showProblem(view, edit, `This slide was deleted while you were editing it${changesSince(view, edit)}. Your text is still here: add it as a new slide, or discard it.`);
    }
    const at = wanted.length;
    wanted.splice(Math.min(at, edit.index - 1), 0, li);
  }
  const kept = new Set(wanted);
  for (const [id, li] of view.items) {
    if (kept.has(li)) continue;
    li.remove();
    view.items.delete(id);
    view.drawn.delete(id);
    view.confirming.delete(id);
  }
  // Items move one by one, only where they are out of place: an open form is moved only when it must be.
  wanted.forEach((li, i) => {
    const at = view.list.children[i];
    if (at !== li) view.list.insertBefore(li, at ?? null);
  });
  view.list.hidden = wanted.length === 0;
  view.empty.hidden = wanted.length > 0;
  restoreFocus(view.root, focus);
}

/** What the person typed into a deck and has not saved (open forms, the add form), labelled: kept when the tab itself is deleted. */
export function unsavedInDeck(tabId: string): { label: string; text: string }[] {
  const view = views.get(tabId);
  if (view === undefined) return [];
  views.delete(tabId);
  return unsavedIn(view);
}

/** Whether any deck holds text the person typed and has not saved. */
export function slidesUnsaved(): boolean {
  return [...views.values()].some((view) => unsavedIn(view).length > 0);
}

function unsavedIn(view: DeckView): { label: string; text: string }[] {
  const kept: { label: string; text: string }[] = [];
  for (const edit of view.edits.values()) {
    const values = valuesOf(edit.form);
    for (const field of FIELDS) if (values[field] !== edit.original[field]) kept.push({ label: `Slide ${edit.index}, ${LABELS[field]}`, text: values[field] });
  }
  const adding = valuesOf(view.addForm);
  for (const field of FIELDS) if (adding[field] !== "") kept.push({ label: `New slide, ${LABELS[field]}`, text: adding[field] });
  return kept;
}

function viewOf(tabId: string): DeckView {
  const known = views.get(tabId);
  if (known !== undefined) return known;
  const list = h("ol", { class: "slides" });
  const empty = h("p", { class: "hint" }, "No slides yet.");
  const view: DeckView = { tabId, root: h("div", { class: "deck" }), list, empty, items: new Map(), drawn: new Map(), edits: new Map(), confirming: new Set(), addForm: h("form") };
  view.addForm = addForm(view);
  view.root.append(list, empty, view.addForm);
  views.set(tabId, view);
  return view;
}

function itemOf(view: DeckView, slideId: string): HTMLLIElement {
  let li = view.items.get(slideId);
  if (li === undefined) {
    li = h("li", { "data-slide-id": slideId });
    view.items.set(slideId, li);
  }
  return li;
}

/** The deck as last read, and one slide of it. */
function slidesOf(view: DeckView): Slide[] {
  return page.note?.tabs.find((tab) => tab.id === view.tabId)?.slides ?? [];
}

function redraw(view: DeckView): void {
  const tab = page.note?.tabs.find((t) => t.id === view.tabId);
  if (tab !== undefined && page.selected === view.tabId) renderSlides(tab);
}

// ---- a slide as a person reads it ------------------------------------------------------------

function drawSlide(view: DeckView, li: HTMLLIElement, slide: Slide, i: number, slides: Slide[]): void {
  const last = i === slides.length - 1;
  const confirming = view.confirming.has(slide.id);
  const signature = JSON.stringify([slide.title, slide.body, slide.notes, i, last, confirming]);
  if (view.drawn.get(slide.id) === signature && li.querySelector("form") === null) return;
  view.drawn.set(slide.id, signature);
  const name = `slide ${i + 1}: ${slide.title}`;
  const edit = button("Edit", `Edit ${name}`, `edit:${slide.id}`, () => openEdit(view, slide.id));
  const earlier = button("Earlier", `Move ${name.replace(":", " earlier:")}`, `earlier:${slide.id}`, () => move(view, slide.id, -1));
  earlier.disabled = i === 0;
  const later = button("Later", `Move ${name.replace(":", " later:")}`, `later:${slide.id}`, () => move(view, slide.id, 1));
  later.disabled = last;
  const remove = button("Delete", `Delete ${name}`, `delete:${slide.id}`, () => {
    if (view.confirming.has(slide.id)) view.confirming.delete(slide.id);
    else view.confirming.add(slide.id);
    pendingFocus = view.confirming.has(slide.id) ? `confirm:${slide.id}` : `delete:${slide.id}`;
    redraw(view);
  });
  remove.setAttribute("aria-expanded", String(confirming));
  const confirm = button("Yes, delete this slide", `Yes, delete ${name}`, `confirm:${slide.id}`, () => deleteSlide(view, slide.id, i + 1));
  confirm.classList.add("danger");
  confirm.hidden = !confirming;
  confirm.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    view.confirming.delete(slide.id);
    pendingFocus = `delete:${slide.id}`;
    redraw(view);
  });
  li.className = "";
  li.replaceChildren(
    h("h3", { dir: "auto" }, slide.title),
    ...(slide.body === "" ? [] : [h("div", { class: "body" }, ...bodyBlocks(slide.body))]),
    ...(slide.notes === "" ? [] : [h("p", { class: "notes", dir: "auto" }, "Notes: ", slide.notes)]),
    h("p", { class: "meta" }, h("code", {}, slide.id)),
    h("div", { class: "row actions" }, edit, earlier, later, remove, confirm),
  );
}

function button(text: string, label: string, key: string, onClick: () => void): HTMLButtonElement {
  const element = h("button", { type: "button", "aria-label": label, "data-key": key }, text);
  element.addEventListener("click", onClick);
  return element;
}

// ---- editing in place -------------------------------------------------------------------------

function fieldsOf(slide: Slide): Fields {
  return { title: slide.title, body: slide.body, notes: slide.notes };
}

function valuesOf(form: HTMLFormElement): Fields {
  const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | HTMLTextAreaElement).value;
  return { title: value("title"), body: value("body"), notes: value("notes") };
}

function same(a: Fields, b: Fields): boolean {
  return FIELDS.every((field) => a[field] === b[field]);
}

function openEdit(view: DeckView, slideId: string): void {
  const slides = slidesOf(view);
  const i = slides.findIndex((slide) => slide.id === slideId);
  const slide = slides[i];
  if (slide === undefined || page.note === null) return;
  const fields = fieldsOf(slide);
  const edit: Edit = { slideId, form: h("form"), original: fields, seen: fields, seenVersion: page.note.version, index: i + 1, gone: false, conflicted: false, busy: false };
  edit.form = editForm(view, edit, fields);
  view.edits.set(slideId, edit);
  view.confirming.delete(slideId);
  view.drawn.delete(slideId);
  const li = itemOf(view, slideId);
  li.className = "editing";
  li.replaceChildren(edit.form);
  (edit.form.elements.namedItem("title") as HTMLInputElement).focus();
}

function editForm(view: DeckView, edit: Edit, fields: Fields): HTMLFormElement {
  const id = edit.slideId;
  const form = h("form", { class: "slide-form", "aria-label": `Edit slide ${edit.index}: ${fields.title}`, novalidate: "" });
  const save = h("button", { type: "submit", "data-key": `save:${id}` }, "Save");
  const cancel = button("Cancel", "", `cancel:${id}`, () => close(view, edit, "Editing cancelled; the slide is as it was."));
  const mine = button("Save mine over it", "", `mine:${id}`, () => void saveEdit(view, edit, true));
  const discard = button("Discard mine", "", `discard:${id}`, () => close(view, edit, `Your edits to slide ${edit.index} were discarded; it shows the Note's version.`));
  for (const control of [cancel, mine, discard]) control.removeAttribute("aria-label");
  form.append(
    ...fieldControls(id, fields),
    h("p", { class: "error", role: "alert", "data-role": "error", hidden: "" }),
    h("div", { class: "conflict", "data-role": "conflict", hidden: "" }, h("p", { role: "alert", "data-role": "conflict-text" }), h("dl", { "data-role": "theirs" }), h("div", { class: "row" }, mine, discard)),
    h("div", { class: "row" }, save, cancel),
  );
  labelEdit(edit, form);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void saveEdit(view, edit, false);
  });
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    close(view, edit, "Editing cancelled; the slide is as it was.");
  });
  return form;
}

/** The labelled fields of a slide form; `key` makes their data-keys unique. */
function fieldControls(key: string, fields: Fields): HTMLLabelElement[] {
  return FIELDS.map((field) => {
    const attributes = { name: field, maxlength: String(MAX[field]), "data-key": `${field}:${key}`, dir: "auto", autocomplete: "off" };
    const control = field === "title" ? h("input", { ...attributes, required: "" }) : h("textarea", { ...attributes, rows: field === "body" ? "5" : "3" });
    control.value = fields[field];
    return h("label", {}, LABELS[field], control);
  });
}

/** The form's labels name the slide by its place now and its title as the person opened it. */
function labelEdit(edit: Edit, form = edit.form): void {
  const name = `slide ${edit.index}: ${edit.original.title}`;
  form.setAttribute("aria-label", `Edit ${name}`);
  form.querySelector(`[data-key="save:${CSS.escape(edit.slideId)}"]`)?.setAttribute("aria-label", `Save ${name}`);
  form.querySelector(`[data-key="cancel:${CSS.escape(edit.slideId)}"]`)?.setAttribute("aria-label", `Cancel editing ${name}`);
  const mine = form.querySelector(`[data-key="mine:${CSS.escape(edit.slideId)}"]`);
  if (mine !== null) {
    mine.textContent = edit.gone ? "Add mine as a new slide" : "Save mine over it";
    mine.setAttribute("aria-label", `${mine.textContent} (${name})`);
  }
  form.querySelector(`[data-key="discard:${CSS.escape(edit.slideId)}"]`)?.setAttribute("aria-label", `Discard mine (${name})`);
}

function part(edit: Edit, role: string): HTMLElement {
  return edit.form.querySelector<HTMLElement>(`[data-role="${role}"]`) as HTMLElement;
}

/** A redraw with the form open: only its labels and, when the slide changed under it, a word about that. Never its fields. */
function syncEdit(view: DeckView, edit: Edit, slide: Slide): void {
  const li = itemOf(view, edit.slideId);
  if (li.firstElementChild !== edit.form) li.replaceChildren(edit.form);
  li.className = "editing";
  labelEdit(edit);
  if (!edit.conflicted && !same(fieldsOf(slide), edit.seen)) {
    const notice = part(edit, "error");
    const text = `This slide was changed on the Note while you edit it${changesSince(view, edit)}. Your text is kept; Save asks before it replaces theirs.`;
    // Said once per change, not again on every re-read.
    if (notice.hidden || notice.textContent !== text) {
      notice.hidden = false;
      notice.textContent = text;
    }
  }
}

/** The changes to this slide since the person last saw it, in words (": v7 Deck Builder changed a slide in …"), or "". */
function changesSince(view: DeckView, edit: Edit): string {
  const words = conflictInWords(localConflict(view, edit));
  return words === "" ? "" : ` (${words})`;
}

/** The log's entries since the person last saw the slide that touched it, as a conflict the API would tell. */
function localConflict(view: DeckView, edit: Edit): Conflict {
  const current = page.note?.version ?? edit.seenVersion;
  const touching = (entry: ChangeEntry) =>
    entry.version > edit.seenVersion && entry.tab_id === view.tabId && (entry.slide_ids === undefined || entry.slide_ids.includes(edit.slideId) || (entry.ids_omitted ?? 0) > 0);
  const changes = [...feed.values()].filter(touching).sort((a, b) => a.version - b.version);
  return { expected_version: edit.seenVersion, current_version: current, changes, changes_complete: true };
}

function showProblem(view: DeckView, edit: Edit, message: string): void {
  edit.conflicted = true;
  const slide = slidesOf(view).find((s) => s.id === edit.slideId);
  const theirs = part(edit, "theirs");
  // What the Note holds now, for each field the person changed: what they would replace.
  const mine = valuesOf(edit.form);
  theirs.replaceChildren(
    ...(slide === undefined
      ? []
      : FIELDS.filter((field) => mine[field] !== edit.original[field] || slide[field] !== edit.original[field]).flatMap((field) => [
          h("dt", {}, `${LABELS[field]} on the Note now`),
          h("dd", { dir: "auto" }, slide[field] === "" ? "(empty)" : slide[field]),
        ])),
  );
  part(edit, "error").hidden = true;
  part(edit, "conflict").hidden = false;
  part(edit, "conflict-text").textContent = message;
  labelEdit(edit);
  say(message);
  // The person has now been told of what is there: "Save mine over it" writes over this, and only this.
  if (slide !== undefined && page.note !== null) {
    edit.seen = fieldsOf(slide);
    edit.seenVersion = page.note.version;
  }
}

function fieldError(edit: Edit, field: keyof Fields, message: string): void {
  const error = part(edit, "error");
  error.hidden = false;
  error.textContent = `${LABELS[field]}: ${message}`;
  const control = edit.form.elements.namedItem(field) as HTMLInputElement;
  control.setAttribute("aria-invalid", "true");
  control.focus();
}

async function saveEdit(view: DeckView, edit: Edit, overTheirs: boolean): Promise<void> {
  if (edit.busy || page.note === null) return;
  const values = valuesOf(edit.form);
  if (values.title.trim() === "") return fieldError(edit, "title", "required: a slide needs a title.");
  (edit.form.elements.namedItem("title") as HTMLInputElement).removeAttribute("aria-invalid");
  const name = `slide ${edit.index}`;
  if (edit.gone) {
    if (!overTheirs) return void showProblem(view, edit, part(edit, "conflict-text").textContent ?? "");
    return void addSlides(view, `Add slide (your edits to the deleted ${name})`, values, () => removeEdit(view, edit, null));
  }
  if (edit.conflicted && !overTheirs) {
    say(`Slide ${edit.index} changed while you were editing: choose "Save mine over it" or "Discard mine".`);
    (edit.form.querySelector(`[data-key="mine:${CSS.escape(edit.slideId)}"]`) as HTMLElement).focus();
    return;
  }
  const slide = slidesOf(view).find((s) => s.id === edit.slideId);
  // Changed on the Note since the person last saw it (the live socket brought it): refused here, as the API would.
  if (!overTheirs && slide !== undefined && !same(fieldsOf(slide), edit.seen)) {
    return showProblem(view, edit, conflictMessage(edit, conflictInWords(localConflict(view, edit))));
  }
  const changed: Partial<Fields> = {};
  for (const field of FIELDS) if (values[field] !== edit.original[field]) changed[field] = values[field];
  if (Object.keys(changed).length === 0) return close(view, edit, `Nothing changed in ${name}.`);
  edit.busy = true;
  try {
    await write(
      overTheirs ? `Save ${name} over the other change` : `Save ${name}`,
      "PATCH",
      `/tabs/${encodeURIComponent(view.tabId)}/slides/${encodeURIComponent(edit.slideId)}`,
      changed,
      () => {
        // Shown at once; the re-read that follows confirms it.
        if (slide !== undefined) Object.assign(slide, changed);
        removeEdit(view, edit, `edit:${edit.slideId}`);
        redraw(view);
      },
      (conflict) => showProblem(view, edit, conflictMessage(edit, conflictInWords(conflict))),
    );
  } finally {
    edit.busy = false;
  }
  applyPendingFocus(view);
}

function conflictMessage(edit: Edit, words: string): string {
  return `Slide ${edit.index} not saved: it was changed while you were editing${words === "" ? "" : ` (${words})`}. Your text is still here: save yours over it, or discard yours.`;
}

/** Closes the form: the slide shows as the Note has it, and the Edit button has the focus. */
function close(view: DeckView, edit: Edit, message: string): void {
  removeEdit(view, edit, edit.gone ? null : `edit:${edit.slideId}`);
  say(message);
  redraw(view);
  applyPendingFocus(view);
}

function removeEdit(view: DeckView, edit: Edit, focusKey: string | null): void {
  view.edits.delete(edit.slideId);
  view.drawn.delete(edit.slideId);
  const li = view.items.get(edit.slideId);
  if (li !== undefined && li.firstElementChild === edit.form) li.replaceChildren();
  pendingFocus = focusKey ?? "title:add";
}

// ---- adding, deleting, moving -----------------------------------------------------------------

function addForm(view: DeckView): HTMLFormElement {
  const form = h("form", { class: "slide-form add-slide", "aria-labelledby": `add-slide-${view.tabId}`, novalidate: "" });
  const error = h("p", { class: "error", role: "alert", hidden: "" });
  form.append(
    h("h3", { id: `add-slide-${view.tabId}` }, "Add a slide at the end"),
    ...fieldControls("add", { title: "", body: "", notes: "" }),
    error,
    h("div", { class: "row" }, h("button", { type: "submit", "data-key": "add" }, "Add slide")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = valuesOf(form);
    const title = form.elements.namedItem("title") as HTMLInputElement;
    if (values.title.trim() === "") {
      error.hidden = false;
      error.textContent = "Title: required: a slide needs a title.";
      title.setAttribute("aria-invalid", "true");
      title.focus();
      return;
    }
    error.hidden = true;
    title.removeAttribute("aria-invalid");
    void addSlides(view, "Add slide", values, () => {
      form.reset();
      pendingFocus = "title:add";
    });
  });
  return form;
}

async function addSlides(view: DeckView, what: string, values: Fields, done: () => void): Promise<void> {
  const slide: Partial<Fields> = { title: values.title };
  if (values.body !== "") slide.body = values.body;
  if (values.notes !== "") slide.notes = values.notes;
  await write(what, "POST", `/tabs/${encodeURIComponent(view.tabId)}/slides`, { slides: [slide] }, done);
  applyPendingFocus(view);
}

async function deleteSlide(view: DeckView, slideId: string, position: number): Promise<void> {
  const slides = slidesOf(view);
  const i = slides.findIndex((slide) => slide.id === slideId);
  // The focus goes to the slide that takes its place, else the one before, else the add form.
  const next = slides[i + 1] ?? slides[i - 1];
  view.confirming.delete(slideId);
  await write(`Delete slide ${position}`, "DELETE", `/tabs/${encodeURIComponent(view.tabId)}/slides/${encodeURIComponent(slideId)}`, {}, () => {
    pendingFocus = next === undefined ? "title:add" : `edit:${next.id}`;
  });
  redraw(view);
  applyPendingFocus(view);
}

async function move(view: DeckView, slideId: string, delta: -1 | 1): Promise<void> {
  const slides = slidesOf(view);
  const i = slides.findIndex((slide) => slide.id === slideId);
  if (i < 0 || i + delta < 0 || i + delta >= slides.length) return;
  // after_id names the slide it should follow; null moves it first (docs/api.md).
  const after = delta < 0 ? (slides[i - 2]?.id ?? null) : (slides[i + 1]?.id ?? null);
  const title = slides[i]?.title ?? "";
  await write(`Move slide ${i + 1} (${title}) to position ${i + 1 + delta}`, "PATCH", `/tabs/${encodeURIComponent(view.tabId)}/slides/${encodeURIComponent(slideId)}`, { after_id: after }, () => {
    pendingFocus = `${delta < 0 ? "earlier" : "later"}:${slideId}`;
  });
  applyPendingFocus(view);
}

// ---- the focus across redraws -----------------------------------------------------------------

interface FocusMemo {
  element: HTMLElement;
  key: string;
  start: number | null;
  end: number | null;
}

function rememberFocus(root: HTMLElement): FocusMemo | null {
  const element = document.activeElement;
  if (!(element instanceof HTMLElement) || !root.contains(element) || element.dataset.key === undefined) return null;
  const text = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement ? element : null;
  return { element, key: element.dataset.key, start: text?.selectionStart ?? null, end: text?.selectionEnd ?? null };
}

function byKey(root: HTMLElement, key: string): HTMLElement | null {
  return root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
}

function focusable(element: HTMLElement | null): element is HTMLElement {
  return element !== null && !(element as HTMLButtonElement).disabled && !element.hidden && element.isConnected;
}

function restoreFocus(root: HTMLElement, memo: FocusMemo | null): void {
  if (applyPendingFocus(undefined, root)) return;
  if (memo === null || document.activeElement === memo.element) return;
  // Redrawn, or moved with its form: the same control again, and the caret where it was.
  const target = memo.element.isConnected ? memo.element : byKey(root, memo.key);
  if (!focusable(target)) return;
  target.focus();
  if ((target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) && memo.start !== null && memo.end !== null) target.setSelectionRange(memo.start, memo.end);
}

/** Moves the focus where the last action asked, once that control is drawn; answers whether it did. */
function applyPendingFocus(view?: DeckView, root: HTMLElement | undefined = view?.root): boolean {
  if (pendingFocus === null || root === undefined || !root.isConnected) return false;
  let target = byKey(root, pendingFocus);
  // A slide moved to an end: its other move button.
  const [kind, ...rest] = pendingFocus.split(":");
  const other = kind === "earlier" ? "later" : kind === "later" ? "earlier" : null;
  if (target !== null && !focusable(target) && other !== null) target = byKey(root, [other, ...rest].join(":"));
  if (!focusable(target)) return false;
  pendingFocus = null;
  target.focus();
  return true;
}
