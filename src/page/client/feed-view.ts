/**
 * @module
 * The activity feed on the page: the log's entries by version, one line each
 * (feed.ts words them), at most FEED_SHOWN of them.
 */
import { api } from "./api.js";
import { $, h, say } from "./dom.js";
import { describeChange } from "./feed.js";
import { feed, page } from "./state.js";
import type { ChangeEntry } from "./types.js";

/** The last 50 entries of the change log, for the feed. */
export async function loadFeed(version: number): Promise<void> {
  const answer = await api<{ changes: ChangeEntry[] }>("GET", `/changes?since_version=${Math.max(0, version - 50)}&limit=50`);
  if (!answer.ok) {
    if (answer.status !== 401) say(`Could not read the activity: ${answer.error.message}`);
    return;
  }
  for (const entry of answer.value.changes) feed.set(entry.version, entry);
  renderFeed();
}

let feedShown = 0;
/** At most this many entries stay on the page (the log keeps 1,000). */
const FEED_SHOWN = 500;

export function renderFeed(): void {
  const list = $("feed");
  const versions = [...feed.keys()].sort((a, b) => a - b);
  const item = (version: number) => {
    const entry = feed.get(version) as ChangeEntry;
    const line = describeChange(entry);
    return h(
      "li",
      { "data-version": String(version), "data-actor": entry.actor.kind, "data-operation": entry.operation },
      h("span", { class: "version" }, `v${version}`),
      " ",
      h("time", { datetime: entry.at }, new Date(entry.at).toLocaleTimeString()),
      " ",
      h("span", { class: `actor ${entry.actor.kind}` }, h("bdi", {}, line.who), ...(line.forUser === undefined ? [] : [" (for ", h("bdi", {}, line.forUser), ")"])),
      " ",
      h("span", { class: "badge" }, entry.actor.kind === "agent" ? "agent" : "person"),
      " ",
      line.what,
      ...(line.tabId === undefined ? [] : [" ", h("bdi", { class: "tab", "data-tab-id": line.tabId }, line.tabId)]),
      ...(line.subject === undefined ? [] : [" ", h("bdi", {}, line.subject)]),
      line.count,
    );
  };
  // Entries newer than the last shown are appended; anything else (a snapshot, a page of older ones) redraws.
  const fresh = versions.filter((version) => version > feedShown);
  if (list.childElementCount === Math.min(versions.length - fresh.length, FEED_SHOWN)) list.append(...fresh.map(item));
  else list.replaceChildren(...versions.slice(-FEED_SHOWN).map(item));
  while (list.childElementCount > FEED_SHOWN) list.firstElementChild?.remove();
  feedShown = versions.at(-1) ?? 0;
  relabelFeed();
}

/** Names each tab in the feed by its label now (a line drawn before the tab was read shows its ID alone). */
export function relabelFeed(): void {
  const labels = new Map(page.note?.tabs.map((tab) => [tab.id, tab.label]));
  for (const span of $("feed").querySelectorAll<HTMLElement>("bdi.tab")) {
    const id = span.dataset.tabId ?? "";
    const label = labels.get(id);
    const text = label === undefined ? id : `“${label}” (${id})`;
    if (span.textContent !== text) span.textContent = text;
  }
}
