/**
 * @module
 * The Files and Sources tabs' panels: their items a page at a time
 * (`GET /attachments?kind=`), each with its exact ID; a source as a link
 * (http(s) only) with its host in Unicode, dates and sizes as a person reads
 * them. The person cites a page (`POST /sources`: the agent's dedupe answer
 * told in words) and records a file's details (`POST /files`).
 */
import { api, write } from "./api.js";
import { $, h, say } from "./dom.js";
import { readableDate, readableSize, readableUrl } from "./readable.js";
import { page } from "./state.js";
import type { Tab } from "./types.js";

type Item = { id: string; title?: string; url?: string; description?: string; name?: string; media_type?: string; size_bytes?: number; added_at: string };

/** What `POST /sources` answers: a new source, or the one already citing the page. */
interface Cited {
  version: number;
  source_id: string;
  title: string;
  already_attached: boolean;
}

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
  list.append(...answer.value.items.map((item) => (kind === "sources" ? sourceItem(item) : fileItem(item))));
  if (list.childElementCount === 0) content.append(h("p", { class: "hint" }, `No ${kind} yet.`));
  page.nextCursor = answer.value.next_cursor;
}

/** A source: its title as a link when its URL is http(s), the URL with its host in Unicode, its description, its ID and date. */
function sourceItem(item: Item): HTMLLIElement {
  const title = h("bdi", {}, item.title ?? "");
  const url = readableUrl(item.url ?? "");
  // The link's title attribute keeps the URL exactly as stored (its host in punycode): a look-alike host can be told.
  const heading = url === null ? h("strong", {}, title) : h("a", { href: url.href, rel: "noopener noreferrer", title: url.href }, title);
  return h(
    "li",
    { "data-id": item.id },
    heading,
    h("span", { class: "url", dir: "ltr" }, url === null ? (item.url ?? "") : url.shown),
    ...(item.description ? [h("p", { class: "description", dir: "auto" }, item.description)] : []),
    added(item),
  );
}

function fileItem(item: Item): HTMLLIElement {
  return h(
    "li",
    { "data-id": item.id },
    h("strong", {}, h("bdi", {}, item.name ?? "")),
    ` ${item.media_type ?? ""}, `,
    h("span", { class: "size", "data-bytes": String(item.size_bytes ?? 0) }, readableSize(item.size_bytes ?? 0)),
    added(item),
  );
}

function added(item: Item): HTMLParagraphElement {
  return h("p", { class: "meta" }, h("code", {}, item.id), " added ", h("time", { datetime: item.added_at }, readableDate(item.added_at)));
}

/** The dedupe answer in words, as the agent gets it: nothing added, and which source already cites the page. */
export function citedInWords(cited: Cited): string {
  return cited.already_attached ? `Already cited as “${cited.title}” (${cited.source_id}): nothing added.` : `Cited “${cited.title}” as ${cited.source_id}.`;
}

export function bindAttachments(): void {
  const cite = $<HTMLFormElement>("cite-source");
  cite.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(cite);
    const description = String(data.get("description") ?? "");
    let cited: Cited | null = null;
    const body = { url: String(data.get("url") ?? "").trim(), title: String(data.get("title") ?? ""), ...(description.trim() === "" ? {} : { description }) };
    void write<Cited>("Cite a page", "POST", "/sources", body, (value) => {
      cited = value;
    }).then((done) => {
      if (!done || cited === null) return;
      say(citedInWords(cited));
      // A new citation is done with; a page already cited keeps what the person typed.
      if (!cited.already_attached) {
        cite.reset();
        (cite.elements.namedItem("url") as HTMLInputElement).focus();
      }
    });
  });
  const file = $<HTMLFormElement>("add-file");
  file.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(file);
    const size = Number(String(data.get("size_bytes") ?? ""));
    const body = { name: String(data.get("name") ?? ""), media_type: String(data.get("media_type") ?? "").trim(), size_bytes: size };
    void write<{ version: number; file_id: string }>("Add file", "POST", "/files", body).then((done) => {
      if (!done) return;
      file.reset();
      (file.elements.namedItem("name") as HTMLInputElement).focus();
    });
  });
}
