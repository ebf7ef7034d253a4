/**
 * @module
 * The Note's title and members on its page: the title renamed in place from
 * the header (`PATCH /notes/:id`; a re-read never overwrites what the person
 * typed, a conflict keeps it and names what changed), members added
 * (`POST /members`) and removed after a confirmation (`DELETE /members/:user`).
 */
import { conflictInWords, write } from "./api.js";
import { $, h, say } from "./dom.js";
import { page } from "./state.js";

/** What the title field was last filled with: a re-read never overwrites what the person typed. */
let titleBase: string | null = null;

export function syncTitleField(title: string): void {
  const input = $<HTMLInputElement>("note-title-input");
  if (titleBase === null || input.value === titleBase) {
    input.value = title;
    titleBase = title;
  }
}

function closeTitleForm(): void {
  $("note-title-form").hidden = true;
  $("rename-note").setAttribute("aria-expanded", "false");
  titleBase = null;
  if (page.note !== null) syncTitleField(page.note.title);
  $("rename-note").focus();
}

/** The member whose removal waits for its confirmation. */
let removing: string | null = null;

export function renderMembers(members: string[]): void {
  if (removing !== null && !members.includes(removing)) removing = null;
  const list = $("members");
  const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.action : undefined;
  list.replaceChildren(
    ...members.map((user) => {
      const remove = h("button", { type: "button", "data-action": `remove:${user}`, "aria-label": `Remove ${user}` }, "Remove");
      remove.addEventListener("click", () => {
        removing = removing === user ? null : user;
        renderMembers(page.note?.members ?? []);
        list.querySelector<HTMLElement>(`[data-action="${CSS.escape(removing === null ? `remove:${user}` : `confirm:${user}`)}"]`)?.focus();
      });
      const item = h("li", { "data-user": user }, h("bdi", {}, user), " ", remove);
      if (removing === user) {
        const confirm = h("button", { type: "button", class: "danger", "data-action": `confirm:${user}` }, `Yes, remove ${user}`);
        confirm.addEventListener("click", () => {
          removing = null;
          void write(`Remove ${user}`, "DELETE", `/members/${encodeURIComponent(user)}`).then(() => $("add-member").querySelector("input")?.focus());
        });
        item.append(" ", confirm);
      }
      return item;
    }),
  );
  if (focused !== undefined) list.querySelector<HTMLElement>(`[data-action="${CSS.escape(focused)}"]`)?.focus();
}

export function bindTitleAndMembers(): void {
  $("rename-note").addEventListener("click", () => {
    const form = $("note-title-form");
    form.hidden = !form.hidden;
    $("rename-note").setAttribute("aria-expanded", String(!form.hidden));
    if (!form.hidden) $("note-title-input").focus();
  });
  $("note-title-cancel").addEventListener("click", closeTitleForm);
  $("note-title-form").addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    closeTitleForm();
  });
  $<HTMLFormElement>("note-title-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const title = $<HTMLInputElement>("note-title-input").value.trim();
    // Renamed by someone else since the field was filled (the live socket brought it): the page's version is already
    // the new one, so the API would take this over theirs without a word. Told as the conflict it is; Save again applies it.
    const current = page.note?.title;
    if (titleBase !== null && current !== undefined && current !== titleBase) {
      titleBase = current;
      say(`Rename the Note: not done. The Note was renamed to “${current}” while you were editing. Your title is kept in the field: Save title again to apply it, or Cancel.`);
      return;
    }
    void write(
      "Rename the Note",
      "PATCH",
      "",
      { title },
      () => {
        titleBase = null;
        $("note-title-form").hidden = true;
        $("rename-note").setAttribute("aria-expanded", "false");
      },
      (conflict) => {
        // The re-read has shown what changed: the next Save is on it.
        titleBase = page.note?.title ?? titleBase;
        say(
          `Rename the Note: not done. The Note changed while you were editing (${conflictInWords(conflict)}). Your title is kept in the field: Save title again to apply it, or Cancel.`,
        );
      },
    );
  });
  const add = $<HTMLFormElement>("add-member");
  add.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = add.elements.namedItem("user") as HTMLInputElement;
    const user = input.value.trim();
    void write(user === "" ? "Add a member" : `Add ${user}`, "POST", "/members", { user }, () => {
      input.value = "";
    });
  });
}
