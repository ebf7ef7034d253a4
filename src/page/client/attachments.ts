/**
 * @module
 * The Files and Sources tabs' panels: their items a page at a time
 * (`GET /attachments?kind=`), each with its exact ID.
 */
import { api } from "./api.js";
import { $, h, say } from "./dom.js";
import { page } from "./state.js";
import type { Tab } from "./types.js";

type Item = { id: string; title?: string; url?: string; description?: string; name?: string; media_type?: string; size_bytes?: number; added_at: string };

/** Reads the next page of the tab's files or sources (from `page.nextCursor`) and appends them. */
export async function loadAttachmentsPage(tab: Tab): Promise<void> {
  const kind = tab.type === "files" ? "files" : "sources";
  const cursor = page.nextCursor === null ? "" : `&cursor=${encodeURIComponent(page.nextCursor)}`;
  const answer = await api<{ items: Item[]; next_cursor: string | null }>("GET", `/attachments?kind=${kind}&limit=50${cursor}`);
  if (page.selected !== tab.id) return;
  if (!answer.ok) return say(`Could not read the ${kind}: ${answer.error.message}`);
  const content = $("tab-content");
  let list = content.querySelector("ul");
  if (list === null) {
    list = h("ul", { class: "attachments" });
    content.replaceChildren(list);
  }
  list.append(
    ...answer.value.items.map((item) =>
      kind === "sources"
        ? h("li", { "data-id": item.id }, h("strong", {}, item.title ?? ""), " ", h("span", { class: "url" }, item.url ?? ""), ...(item.description ? [h("p", {}, item.description)] : []), h("p", { class: "meta" }, h("code", {}, item.id), ` added ${item.added_at}`))
        : h("li", { "data-id": item.id }, h("strong", {}, item.name ?? ""), ` ${item.media_type ?? ""}, ${item.size_bytes ?? 0} bytes`, h("p", { class: "meta" }, h("code", {}, item.id), ` added ${item.added_at}`)),
    ),
  );
  if (list.childElementCount === 0) content.append(h("p", { class: "hint" }, `No ${kind} yet.`));
  page.nextCursor = answer.value.next_cursor;
}
