/**
 * @module
 * The home, /notes/: the signed-in person's Notes a page at a time
 * (`GET /api/v1/notes`, its cursor), narrowed by a title filter as they type,
 * and a form that creates a Note and opens it. app.ts starts it when the path
 * is the home's. Titles go in as text, in <bdi> (a right-to-left title does
 * not reorder what follows it).
 */
import { errorInWords, request, SIGN_IN_AT } from "./api.js";
import { $, h, say } from "./dom.js";
import { page } from "./state.js";

/** Notes per page. */
export const HOME_PAGE_SIZE = 50;
/** How long typing in the filter rests before the list is read again. */
const FILTER_DEBOUNCE_MS = 300;

interface Listed {
  note_id: string;
  title: string;
  approved: boolean;
}

/** Where each page shown so far starts (null: the first); `index` is the one on screen. */
let starts: (string | null)[] = [null];
let index = 0;
let next: string | null = null;
let filter = "";
/** Each read's number: an answer to an older read (the filter changed since) is dropped. */
let reads = 0;

function notePath(noteId: string): string {
  return `/notes/${encodeURIComponent(noteId)}`;
}

async function load(): Promise<void> {
  const mine = ++reads;
  const query = new URLSearchParams({ limit: String(HOME_PAGE_SIZE) });
  const start = starts[index];
  if (start !== null && start !== undefined) query.set("cursor", start);
  if (filter !== "") query.set("title_contains", filter);
  const answer = await request<{ notes: Listed[]; next_cursor: string | null }>("GET", `/api/v1/notes?${query.toString()}`);
  if (mine !== reads) return;
  if (!answer.ok) {
    if (answer.status !== 401) say(`Could not list your Notes: ${errorInWords(answer.error)}`);
    return;
  }
  // Signed in and reading: a later 401 (the session over, a sign-out) may go to sign-in again at once.
  sessionStorage.removeItem(SIGN_IN_AT);
  const { notes, next_cursor } = answer.value;
  next = next_cursor;
  $("notes").replaceChildren(
    ...notes.map((note) =>
      h(
        "li",
        { "data-note-id": note.note_id },
        h("a", { href: notePath(note.note_id) }, h("bdi", {}, note.title)),
        " ",
        h("code", {}, note.note_id),
        " ",
        h("span", { class: note.approved ? "badge approved" : "badge" }, note.approved ? "connectors approved" : "connectors not approved"),
      ),
    ),
  );
  const first = index * HOME_PAGE_SIZE + 1;
  // The filter is the person's text: isolated (<bdi>), so a direction mark in it cannot reorder the sentence around it.
  const matching: (Node | string)[] = filter === "" ? [] : [" whose title contains “", h("bdi", {}, filter), "”"];
  const more = next === null ? "" : ", more on the next page";
  $("notes-range").replaceChildren(
    ...(notes.length === 0
      ? filter === ""
        ? [index === 0 ? "You have no Notes yet: create one above." : "No more Notes."]
        : ["No Note", ...matching, "."]
      : [`Notes ${first}–${first + notes.length - 1}`, ...matching, `${more}.`]),
  );
  $<HTMLButtonElement>("previous-page").disabled = index === 0;
  $<HTMLButtonElement>("next-page").disabled = next === null;
}

function bind(): void {
  $("next-page").addEventListener("click", () => {
    if (next === null) return;
    starts = [...starts.slice(0, index + 1), next];
    index += 1;
    void load();
  });
  $("previous-page").addEventListener("click", () => {
    if (index === 0) return;
    index -= 1;
    void load();
  });
  const field = $<HTMLFormElement>("filter-notes").elements.namedItem("title_contains") as HTMLInputElement;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refilter = () => {
    clearTimeout(timer);
    const wanted = field.value.trim();
    if (wanted === filter) return;
    filter = wanted;
    starts = [null];
    index = 0;
    void load();
  };
  field.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refilter, FILTER_DEBOUNCE_MS);
  });
  // Enter filters at once rather than reloading the page.
  $<HTMLFormElement>("filter-notes").addEventListener("submit", (event) => {
    event.preventDefault();
    refilter();
  });
  const create = $<HTMLFormElement>("create-note");
  create.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = create.elements.namedItem("title") as HTMLInputElement;
    const button = create.querySelector("button") as HTMLButtonElement;
    button.disabled = true;
    say("Creating the Note…");
    void request<{ note_id: string }>("POST", "/api/v1/notes", { title: input.value.trim() }).then((answer) => {
      button.disabled = false;
      if (answer.ok) {
        say("Created: opening it…");
        location.assign(notePath(answer.value.note_id));
      } else if (answer.status !== 401) {
        // The title stays in the field, to fix and send again.
        say(`Create a Note: not done. ${errorInWords(answer.error)}`);
        input.focus();
      }
    });
  });
}

export async function startHome(): Promise<void> {
  // The home has no live socket: leaving for sign-in just says so.
  page.stop = (message) => {
    page.stopped = true;
    say(message);
  };
  $<HTMLFormElement>("sign-out").action = `/notes/sign-out?return=${encodeURIComponent(location.pathname)}`;
  bind();
  await load();
}
