/**
 * @module
 * The person's page in the browser (served as /notes/app.js; built into
 * src/page/generated/app-js.ts by `npm run build:page`). It reads the Note
 * through the person's API with the session cookie, keeps it current over the
 * Note's live socket, and acts through the same API. Every piece of data goes
 * into the page as text (textContent, attribute values), never as HTML.
 *
 * This file reads and follows the Note and draws the tabs; each kind of tab
 * has its panel (slides.ts, sheet.ts, markdown.ts, attachments.ts), the feed
 * its view (feed-view.ts), the header the Note's title and members
 * (header.ts), the search box its module (search.ts), and state.ts holds what they share. The same script is the
 * home's (home.ts) at /notes/.
 */
import { api, SIGN_IN_AT, write } from "./api.js";
import { bindAttachments, loadAttachmentsPage } from "./attachments.js";
import { $, h, say, setLive } from "./dom.js";
import { describeChange } from "./feed.js";
import { loadFeed, renderFeed } from "./feed-view.js";
import { bindTitleAndMembers, renderMembers, syncTitleField } from "./header.js";
import { startHome } from "./home.js";
import { bindMarkdown, markdownUnsaved, syncMarkdown } from "./markdown.js";
import { loadSheetPage, reloadSheet, sheetsUnsaved, unsavedInSheet } from "./sheet.js";
import { bindSearch } from "./search.js";
import { renderSlides, slidesUnsaved, unsavedInDeck } from "./slides.js";
import { feed, noteBase, noteId, page, selectedTab } from "./state.js";
import type { ChangeEntry, LiveMessage, Note, Tab } from "./types.js";

function stop(message: string): void {
  page.stopped = true;
  socket?.close(1000, "done");
  socket = null;
  setLive(message);
}

/** The Note is out of reach: says why, with the way back to the person's other Notes. */
function sayGone(message: string): void {
  say(message);
  $("gone-home").hidden = false;
  $("rename-note").hidden = true;
  $("note-title-form").hidden = true;
}

// ---- reading ------------------------------------------------------------------------------

/** Reads the whole Note and shows it. */
async function refresh(): Promise<void> {
  if (page.stopped) return;
  const answer = await api<Note>("GET", "");
  // The socket may have closed for good while this read was under way: its reason stands.
  if (page.stopped) return;
  if (!answer.ok) {
    if (answer.error.code === "note_not_found") {
      stop("closed");
      sayGone(`There is no Note "${noteId}" that you can use: it was deleted, you were removed, or the address is wrong.`);
      // Nothing to show or act on: no heading that still says loading, no buttons that would do nothing.
      $("note-title").textContent = "No Note to show";
      for (const main of document.getElementsByTagName("main")) main.hidden = true;
    } else if (answer.status !== 401) {
      say(`Could not read the Note: ${answer.error.message}`);
    }
    return;
  }
  // A read that left before the page's own write came back is older than what the page knows: the next one is not.
  if (page.note !== null && answer.value.version < page.note.version) return;
  page.note = answer.value;
  // Signed in and reading: a later 401 (the session over, a sign-out) may go to sign-in again at once.
  sessionStorage.removeItem(SIGN_IN_AT);
  render();
}

let reading: Promise<void> | null = null;
let readAgain = false;

/** Re-reads the Note soon: a burst of changes while a read is under way makes one more read, not one each. */
function scheduleRead(): Promise<void> {
  if (reading !== null) {
    readAgain = true;
    return reading;
  }
  reading = (async () => {
    do {
      readAgain = false;
      await refresh();
      await reloadContentIfStale();
    } while (readAgain && !page.stopped);
    reading = null;
  })();
  return reading;
}

page.reread = scheduleRead;
page.stop = stop;

// ---- live ---------------------------------------------------------------------------------

let socket: WebSocket | null = null;
let attempt = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
/** When the socket last sent anything (a frame or the answer to a ping). */
let heardAt = 0;
/** A socket can die without a close event (a laptop lid, a NAT): a ping every 30 s, and one unanswered for 10 s reconnects. */
const PING_EVERY_MS = 30_000;
const PONG_WITHIN_MS = 10_000;

setInterval(() => {
  const ws = socket;
  if (ws === null || ws.readyState !== WebSocket.OPEN) return;
  const sent = Date.now();
  ws.send("ping"); // the object answers "pong" without waking up
  setTimeout(() => {
    if (socket === ws && heardAt < sent) reconnectNow();
  }, PONG_WITHIN_MS);
}, PING_EVERY_MS);

function connect(): void {
  if (page.stopped) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}${noteBase}/live?since=${page.seen}`);
  socket = ws;
  setLive("connecting");
  ws.addEventListener("open", () => setLive("live"));
  ws.addEventListener("message", (event) => {
    if (socket !== ws) return;
    attempt = 0;
    heardAt = Date.now();
    if (event.data === "pong") return;
    let message: LiveMessage;
    try {
      message = JSON.parse(String(event.data)) as LiveMessage;
    } catch {
      return;
    }
    receive(message);
  });
  ws.addEventListener("close", (event) => {
    if (socket !== ws) return;
    socket = null;
    if (event.code === 4404) {
      stop("closed");
      sayGone(`This Note is no longer yours to see: ${event.reason || "it was deleted or you were removed"}.`);
      return;
    }
    if (event.code === 4401) {
      // The token the socket was opened with ended (expired or revoked): a read now meets the 401 and signs in,
      // or, when another tab has already renewed the session, succeeds and the socket opens again.
      setLive("session ended");
      void scheduleRead().then(connect);
      return;
    }
    setLive("reconnecting");
    // Backoff with jitter: 0.5 s, 1 s, 2 s … up to 15 s, so a restarted server is not met by every page at once.
    const delay = Math.min(15_000, 500 * 2 ** attempt) * (0.5 + Math.random() / 2);
    attempt += 1;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(() => {
      // A read first: it finds a 401 (sign in) or a deleted Note before the socket would fail without saying why.
      void scheduleRead().then(connect);
    }, delay);
  });
}

/** A gap in the versions: this socket missed a change. Start over from `seen`. */
function reconnectNow(): void {
  const old = socket;
  socket = null;
  old?.close(1000, "gap");
  connect();
}

function receive(message: LiveMessage): void {
  switch (message.type) {
    case "changes":
      for (const entry of message.changes) if (!apply(entry)) return;
      if (message.changes.length > 0) void scheduleRead();
      return;
    case "snapshot":
      page.seen = message.version;
      // A Note too large for one frame comes without its content: the page reads it as it reads after a change.
      if (message.note === null) void scheduleRead();
      else page.note = message.note;
      // A snapshot behind what the feed shows is a new Note under the same ID: the old one's entries go.
      for (const version of feed.keys()) if (version > message.version) feed.delete(version);
      for (const entry of message.changes) feed.set(entry.version, entry);
      page.contentStale = true;
      render();
      renderFeed();
      void reloadContentIfStale();
      return;
    case "change":
      if (apply(message.change)) void scheduleRead();
      return;
  }
}

/** Applies one entry of the log by the contract's rule; false on a gap (then it reconnects). */
function apply(entry: ChangeEntry): boolean {
  if (entry.version <= page.seen) return true;
  if (entry.version !== page.seen + 1) {
    reconnectNow();
    return false;
  }
  page.seen = entry.version;
  feed.set(entry.version, entry);
  if (touchesSelected(entry)) page.contentStale = true;
  renderFeed();
  if (entry.operation === "delete_note") {
    // Nothing left to read: say who deleted it rather than what a read would answer.
    stop("closed");
    say(`This Note was deleted by ${describeChange(entry).who}.`);
    return false;
  }
  return true;
}

function touchesSelected(entry: ChangeEntry): boolean {
  const selected = page.selected;
  if (selected === null) return false;
  if (entry.tab_id === selected) return true;
  if (selected === "sources") return entry.source_id !== undefined || entry.operation.includes("source");
  if (selected === "files") return entry.file_id !== undefined || entry.operation.includes("file");
  return false;
}

// ---- the page -----------------------------------------------------------------------------

function render(): void {
  const note = page.note;
  if (note === null) return;
  $("note-title").replaceChildren(h("bdi", {}, note.title));
  document.title = `${note.title} · osFoundry Notes`;
  $("rename-note").hidden = false;
  syncTitleField(note.title);
  $("note-version").textContent = String(note.version);
  document.body.dataset.version = String(note.version);
  // While the page opens, the tab to open on is not chosen yet (start, below): the URL's, else the last changed.
  if (selectedTab() === undefined && !opening) {
    if (page.selected !== null) keepUnsaved(page.selected);
    select(firstTab(note), false);
  }
  renderTabs();
  renderPanel();
  renderMembers(note.members);
  $("approval-state").textContent = note.approved ? "approved" : "not approved";
  $("approval-toggle").textContent = note.approved ? "Revoke connector access" : "Approve for connectors";
}

/**
 * The selected tab was deleted by someone else: what the person had typed into it and not saved is not
 * dropped with it, but shown above the panel, each piece labelled and ready to copy, until dismissed.
 */
function keepUnsaved(tabId: string): void {
  const unsaved = [...unsavedInDeck(tabId), ...unsavedInSheet(tabId)];
  if (unsaved.length === 0) return;
  const deletion = [...feed.values()].reverse().find((entry) => entry.operation === "delete_tab" && entry.tab_id === tabId);
  const tab = `The tab ${deletion?.tab_label === undefined ? tabId : `“${deletion.tab_label}” (${tabId})`}`;
  const by = deletion === undefined ? "" : ` by ${describeChange(deletion).who}`;
  const hadFocus = document.activeElement === null || document.activeElement === document.body || $("tab-content").contains(document.activeElement);
  const dismiss = h("button", { type: "button" }, "Dismiss");
  const notice = h(
    "section",
    { class: "kept-text", "aria-labelledby": `kept-${tabId}` },
    h("h3", { id: `kept-${tabId}` }, `${tab} was deleted${by} while you were editing it. Your unsaved text is kept here to copy:`),
    ...unsaved.map(({ label, text }) => h("label", {}, label, h("textarea", { readonly: "", rows: "3", dir: "auto" }, text))),
    dismiss,
  );
  dismiss.addEventListener("click", () => {
    notice.remove();
    $("tab-strip").querySelector<HTMLElement>("button")?.focus();
  });
  $("tab-panel").before(notice);
  say(`${tab} was deleted${by} while you were editing it; your unsaved text is kept above the tab.`);
  if (hadFocus) notice.querySelector("textarea")?.focus();
}

function renderTabs(): void {
  if (page.note === null) return;
  const strip = $("tab-strip");
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.tabId : undefined;
  strip.replaceChildren(
    ...page.note.tabs.map((tab) => {
      const button = h("button", { type: "button", "data-tab-id": tab.id, "aria-pressed": String(tab.id === page.selected) }, h("span", { class: "label" }, tab.label), " ", h("code", {}, tab.id));
      button.addEventListener("click", () => select(tab.id, true));
      return h("li", {}, button);
    }),
  );
  // The strip is rebuilt on every read: keep the keyboard where it was.
  if (focused !== undefined) strip.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(focused)}"]`)?.focus();
}

/** What the rename field was last filled with: the person's typing is never overwritten. */
let renameBase = "";

/** True until the page has chosen the tab it opens on. */
let opening = true;

/** The tab a page shows when no other is chosen: the first Slides tab, else the first. */
function firstTab(note: Note): string | null {
  return (note.tabs.find((tab) => tab.type === "slides") ?? note.tabs[0])?.id ?? null;
}

/**
 * The tab the page opens on: the one the URL names (`?tab=`), else the one changed last (the newest
 * entry of the feed whose tab is still there), else the first Slides tab. A tab the URL names that the
 * Note does not have is said, and the page opens as without it.
 */
function openingTab(note: Note): string | null {
  const has = (tabId: string | undefined) => tabId !== undefined && note.tabs.some((tab) => tab.id === tabId);
  const named = new URLSearchParams(location.search).get("tab");
  if (named !== null && has(named)) return named;
  const versions = [...feed.keys()].sort((a, b) => b - a);
  const changed = versions.map((version) => feed.get(version)?.tab_id).find(has) ?? firstTab(note);
  if (named !== null) {
    const shown = note.tabs.find((tab) => tab.id === changed);
    say(`This Note has no tab "${named}" (it was deleted, or the link is wrong)${shown === undefined ? "." : `: showing “${shown.label}” instead.`}`);
  }
  return changed;
}

function select(tabId: string | null, byPerson: boolean): void {
  if (tabId === page.selected) return;
  page.selected = tabId;
  // The URL names the selected tab: a reload, or the link shared, opens on it.
  const url = new URL(location.href);
  if (tabId === null) url.searchParams.delete("tab");
  else url.searchParams.set("tab", tabId);
  if (url.href !== location.href) history.replaceState(history.state, "", url);
  page.contentStale = true;
  // Another tab: the rename field starts from its label, not from what was typed for the last one.
  ($<HTMLFormElement>("rename-tab").elements.namedItem("label") as HTMLInputElement).value = "";
  renameBase = "";
  $("confirm-delete").hidden = true;
  if (byPerson) {
    renderTabs();
    renderPanel();
    void reloadContentIfStale();
  }
}

function renderPanel(): void {
  const note = page.note;
  const tab = selectedTab();
  const panel = $("tab-panel");
  panel.dataset.tabId = tab?.id ?? "";
  $("tab-panel-title").textContent = tab === undefined ? "No tab" : tab.label;
  $("tab-type").textContent = tab === undefined ? "" : kindOf(tab);
  $("tab-id").textContent = tab?.id ?? "";
  const editable = tab?.type === "slides" || tab?.type === "sheet";
  const rename = $<HTMLFormElement>("rename-tab");
  rename.hidden = !editable;
  const input = rename.elements.namedItem("label") as HTMLInputElement;
  if (tab !== undefined && input.value === renameBase) {
    input.value = tab.label;
    renameBase = tab.label;
  }
  $("delete-tab").hidden = !editable;
  const index = tab === undefined || note === null ? -1 : note.tabs.indexOf(tab);
  ($("move-earlier") as HTMLButtonElement).disabled = index <= 0;
  ($("move-later") as HTMLButtonElement).disabled = note === null || index < 0 || index >= note.tabs.length - 1;
  const markdown = $<HTMLFormElement>("markdown-form");
  markdown.hidden = tab?.type !== "markdown";
  if (tab?.type === "markdown" && note !== null) syncMarkdown(note.markdown);
  if (tab?.type === "slides") renderSlides(tab);
}

function kindOf(tab: Tab): string {
  switch (tab.type) {
    case "slides":
      return `Slides, ${tab.slide_count ?? 0} ${tab.slide_count === 1 ? "slide" : "slides"}`;
    case "sheet":
      return `Sheet, ${tab.row_count ?? 0} rows × ${tab.column_count ?? 0} columns`;
    case "markdown":
      return "Markdown";
    case "files":
      return `Files, ${page.note?.file_count ?? 0}`;
    case "sources":
      return `Sources, ${page.note?.source_count ?? 0}`;
  }
}

/** A Sheet's rows and the Files and Sources lists come a page at a time from their own routes. */
async function reloadContentIfStale(): Promise<void> {
  const tab = selectedTab();
  if (!page.contentStale || tab === undefined) return;
  page.contentStale = false;
  if (tab.type === "sheet") {
    // The Sheet redraws its rows around the person's open forms (sheet.ts), never over them.
    await reloadSheet(tab);
  } else if (tab.type === "files" || tab.type === "sources") {
    page.nextCursor = null;
    $("tab-content").replaceChildren();
    await loadPage(tab);
  } else if (tab.type === "markdown") {
    $("tab-content").replaceChildren();
    $("load-more").hidden = true;
  }
}

async function loadPage(tab: Tab): Promise<void> {
  if (tab.type === "sheet") await loadSheetPage(tab);
  else await loadAttachmentsPage(tab);
  $("load-more").hidden = page.nextCursor === null;
}

// ---- the person's actions -----------------------------------------------------------------

/**
 * A link to a tab of this Note (`?tab=`, as the feed's lines carry) selects the tab in place: no reload,
 * so nothing the person is typing is lost. Another Note's, or a click meant for a new tab or window, goes
 * as links go.
 */
function followTabLinks(): void {
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest("a") : null;
    if (link === null || link.target !== "") return;
    const url = new URL(link.href, location.href);
    const tabId = url.searchParams.get("tab");
    if (url.origin !== location.origin || url.pathname !== location.pathname || tabId === null) return;
    event.preventDefault();
    if (page.note?.tabs.some((tab) => tab.id === tabId) === true) {
      select(tabId, true);
      // The keyboard goes to the tab it opened, just above its panel.
      $("tab-strip").querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(tabId)}"]`)?.focus();
    } else say(`This Note has no tab "${tabId}" any more.`);
  });
}

function bind(): void {
  followTabLinks();
  // A reload, a link followed or the window closed with text typed and not saved: the browser asks first.
  window.addEventListener("beforeunload", (event) => {
    if (!page.stopped && (slidesUnsaved() || sheetsUnsaved() || markdownUnsaved())) event.preventDefault();
  });
  $<HTMLFormElement>("add-tab").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const label = String(data.get("label") ?? "").trim();
    void write<{ version: number; tab: { id: string } }>("Add tab", "POST", "/tabs", { tab_type: data.get("tab_type"), ...(label === "" ? {} : { label }) }, (value) => {
      form.reset();
      select(value.tab.id, false);
    });
  });
  $<HTMLFormElement>("rename-tab").addEventListener("submit", (event) => {
    event.preventDefault();
    const tab = selectedTab();
    const input = (event.currentTarget as HTMLFormElement).elements.namedItem("label") as HTMLInputElement;
    if (tab === undefined) return;
    const label = input.value.trim();
    // Renamed by someone else since the field was filled (seen live): told, not taken over without a word; Save again applies it.
    if (renameBase !== "" && tab.label !== renameBase.trim()) {
      renameBase = tab.label;
      say(`Rename: not done. This tab was renamed to “${tab.label}” while you were editing. Your label is kept in the field: Rename again to apply it.`);
      return;
    }
    void write("Rename", "PATCH", `/tabs/${encodeURIComponent(tab.id)}`, { label }).then((done) => {
      if (done) renameBase = input.value;
    });
  });
  const move = (delta: number) => () => {
    const tab = selectedTab();
    if (tab === undefined || page.note === null) return;
    const position = page.note.tabs.indexOf(tab) + delta;
    void write("Move", "PATCH", `/tabs/${encodeURIComponent(tab.id)}`, { position });
  };
  $("move-earlier").addEventListener("click", move(-1));
  $("move-later").addEventListener("click", move(1));
  $("delete-tab").addEventListener("click", () => {
    const confirm = $("confirm-delete");
    confirm.hidden = !confirm.hidden;
    if (!confirm.hidden) confirm.focus();
  });
  $("confirm-delete").addEventListener("click", () => {
    const tab = selectedTab();
    $("confirm-delete").hidden = true;
    if (tab !== undefined) void write("Delete", "DELETE", `/tabs/${encodeURIComponent(tab.id)}`).then(() => $("delete-tab").focus());
  });
  bindSearch();
  bindMarkdown();
  bindAttachments();
  bindTitleAndMembers();
  $("approval-toggle").addEventListener("click", () => {
    const note = page.note;
    if (note !== null) void write(note.approved ? "Revoke connector access" : "Approve for connectors", "PUT", "/approval", { approved: !note.approved });
  });
  $("load-more").addEventListener("click", () => {
    const tab = selectedTab();
    if (tab !== undefined) void loadPage(tab);
  });
}

async function start(): Promise<void> {
  $("note-id").textContent = noteId;
  $<HTMLFormElement>("sign-out").action = `/notes/sign-out?return=${encodeURIComponent(location.pathname)}`;
  bind();
  await refresh();
  if (page.note === null || page.stopped) return;
  page.seen = page.note.version;
  // The feed first: the tab changed last is the one to open on.
  await loadFeed(page.seen);
  opening = false;
  if (page.note !== null) select(openingTab(page.note), false);
  render();
  await reloadContentIfStale();
  connect();
}

// One script for the home (/notes/) and every Note's page: the path says which.
const begin = noteId === "" ? startHome : start;
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => void begin());
else void begin();
