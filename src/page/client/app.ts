/**
 * @module
 * The person's page in the browser (served as /notes/app.js; built into
 * src/page/generated/app-js.ts by `npm run build:page`). It reads the Note
 * through the person's API with the session cookie, keeps it current over the
 * Note's live socket, and acts through the same API. Every piece of data goes
 * into the page as text (textContent, attribute values), never as HTML.
 */
import type { ChangeEntry, LiveMessage, Note, Tab } from "./types.js";
import { describeChange } from "./feed.js";

const noteId = decodeURIComponent(location.pathname.split("/")[2] ?? "");
const noteBase = `/api/v1/notes/${encodeURIComponent(noteId)}`;

/** The Note as last read; null until the first read answers. */
let note: Note | null = null;
/** The version of the last change applied from the log (contract: apply only seen + 1). */
let seen = 0;
/** The feed, by version: a change told twice (a page of the log, then the socket) is shown once. */
const feed = new Map<number, ChangeEntry>();
let selected: string | null = null;
/** Set when the page has left for sign-in or the Note is gone: nothing more to do. */
let stopped = false;

// ---- the API -----------------------------------------------------------------------------

type ApiError = { code: string; message: string; [key: string]: unknown };
type Answer<T> = { ok: true; value: T } | { ok: false; status: number; error: ApiError };

/**
 * A request to a server that went away mid-answer can hang for good: the reconnect waits for a read, so every
 * request gives up after this long (a write's outcome then unknown: the page re-reads and shows what is there).
 */
const API_TIMEOUT_MS = 20_000;

async function api<T>(method: string, path: string, body?: object): Promise<Answer<T>> {
  const init: RequestInit = { method, credentials: "same-origin", headers: { accept: "application/json" }, signal: AbortSignal.timeout(API_TIMEOUT_MS) };
  if (body !== undefined) {
    init.headers = { accept: "application/json", "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(`${noteBase}${path}`, init);
  } catch {
    return { ok: false, status: 0, error: { code: "offline", message: "The server did not answer; check the connection." } };
  }
  if (response.status === 401) signIn();
  const json: unknown = await response.json().catch(() => null);
  if (response.ok && json !== null) return { ok: true, value: json as T };
  if (response.ok) return { ok: false, status: 0, error: { code: "offline", message: "The server's answer was cut off." } };
  const error = (json as { error?: ApiError } | null)?.error;
  return { ok: false, status: response.status, error: error ?? { code: `http_${response.status}`, message: `The server answered HTTP ${response.status}.` } };
}

/** When this tab last went to sign in (sessionStorage: it survives the round trip through the consent page). */
const SIGN_IN_AT = "notes-sign-in-at";

/** A 401: the session is missing or over. Goes to sign-in, once: a 401 right after a sign-in that never read the Note is told, not looped. */
function signIn(): void {
  if (stopped) return;
  stop("Signing in…");
  const last = Number(sessionStorage.getItem(SIGN_IN_AT) ?? "0");
  if (Date.now() - last < 10_000) {
    say("Sign-in did not give this page access. Reload to try again.");
    return;
  }
  sessionStorage.setItem(SIGN_IN_AT, String(Date.now()));
  location.assign(`/notes/sign-in?return=${encodeURIComponent(location.pathname)}`);
}

function stop(message: string): void {
  stopped = true;
  socket?.close(1000, "done");
  socket = null;
  setLive(message);
}

// ---- reading ------------------------------------------------------------------------------

/** Reads the whole Note and shows it. */
async function refresh(): Promise<void> {
  if (stopped) return;
  const answer = await api<Note>("GET", "");
  // The socket may have closed for good while this read was under way: its reason stands.
  if (stopped) return;
  if (!answer.ok) {
    if (answer.error.code === "note_not_found") {
      stop("closed");
      say(`There is no Note "${noteId}" that you can use: it was deleted, you were removed, or the address is wrong.`);
      // Nothing to show or act on: no heading that still says loading, no buttons that would do nothing.
      $("note-title").textContent = "No Note to show";
      for (const main of document.getElementsByTagName("main")) main.hidden = true;
    } else if (answer.status !== 401) {
      say(`Could not read the Note: ${answer.error.message}`);
    }
    return;
  }
  // A read that left before the page's own write came back is older than what the page knows: the next one is not.
  if (note !== null && answer.value.version < note.version) return;
  note = answer.value;
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
    } while (readAgain && !stopped);
    reading = null;
  })();
  return reading;
}

/** The last 50 entries of the change log, for the feed. */
async function loadFeed(version: number): Promise<void> {
  const answer = await api<{ changes: ChangeEntry[] }>("GET", `/changes?since_version=${Math.max(0, version - 50)}&limit=50`);
  if (!answer.ok) {
    if (answer.status !== 401) say(`Could not read the activity: ${answer.error.message}`);
    return;
  }
  for (const entry of answer.value.changes) feed.set(entry.version, entry);
  renderFeed();
}

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
  if (stopped) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${location.host}${noteBase}/live?since=${seen}`);
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
      say(`This Note is no longer yours to see: ${event.reason || "it was deleted or you were removed"}.`);
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
      seen = message.version;
      // A Note too large for one frame comes without its content: the page reads it as it reads after a change.
      if (message.note === null) void scheduleRead();
      else note = message.note;
      // A snapshot behind what the feed shows is a new Note under the same ID: the old one's entries go.
      for (const version of feed.keys()) if (version > message.version) feed.delete(version);
      for (const entry of message.changes) feed.set(entry.version, entry);
      contentStale = true;
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
  if (entry.version <= seen) return true;
  if (entry.version !== seen + 1) {
    reconnectNow();
    return false;
  }
  seen = entry.version;
  feed.set(entry.version, entry);
  if (touchesSelected(entry)) contentStale = true;
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
  if (selected === null) return false;
  if (entry.tab_id === selected) return true;
  if (selected === "sources") return entry.source_id !== undefined || entry.operation.includes("source");
  if (selected === "files") return entry.file_id !== undefined || entry.operation.includes("file");
  return false;
}

// ---- the page -----------------------------------------------------------------------------

function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** An element with attributes and children; strings become text nodes, never markup. */
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

function say(message: string): void {
  $("status").textContent = message;
}

function setLive(state: string): void {
  const element = $("live-state");
  element.textContent = state;
  element.dataset.state = state;
}

function selectedTab(): Tab | undefined {
  return note?.tabs.find((tab) => tab.id === selected);
}

function render(): void {
  if (note === null) return;
  $("note-title").textContent = note.title;
  document.title = `${note.title} · osFoundry Notes`;
  $("note-version").textContent = String(note.version);
  document.body.dataset.version = String(note.version);
  if (selectedTab() === undefined) select((note.tabs.find((tab) => tab.type === "slides") ?? note.tabs[0])?.id ?? null, false);
  renderTabs();
  renderPanel();
  $("members").replaceChildren(...note.members.map((user) => h("li", {}, user)));
  $("approval-state").textContent = note.approved ? "approved" : "not approved";
  $("approval-toggle").textContent = note.approved ? "Revoke connector access" : "Approve for connectors";
  relabelFeed();
}

function renderTabs(): void {
  if (note === null) return;
  const strip = $("tab-strip");
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.tabId : undefined;
  strip.replaceChildren(
    ...note.tabs.map((tab) => {
      const button = h("button", { type: "button", "data-tab-id": tab.id, "aria-pressed": String(tab.id === selected) }, h("span", { class: "label" }, tab.label), " ", h("code", {}, tab.id));
      button.addEventListener("click", () => select(tab.id, true));
      return h("li", {}, button);
    }),
  );
  // The strip is rebuilt on every read: keep the keyboard where it was.
  if (focused !== undefined) strip.querySelector<HTMLElement>(`[data-tab-id="${CSS.escape(focused)}"]`)?.focus();
}

let contentStale = true;
let nextCursor: string | null = null;
/** What the rename field was last filled with: the person's typing is never overwritten. */
let renameBase = "";
let markdownBase: string | null = null;

function select(tabId: string | null, byPerson: boolean): void {
  if (tabId === selected) return;
  selected = tabId;
  contentStale = true;
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
      return `Files, ${note?.file_count ?? 0}`;
    case "sources":
      return `Sources, ${note?.source_count ?? 0}`;
  }
}

function syncMarkdown(text: string): void {
  const area = $<HTMLTextAreaElement>("markdown-text");
  if (markdownBase === null || area.value === markdownBase) {
    area.value = text;
    markdownBase = text;
  } else if (text !== markdownBase) {
    say("The Markdown was changed by someone else while you were editing. Your edits are kept here; saving them is refused until you discard them.");
  }
}

function renderSlides(tab: Tab): void {
  const slides = tab.slides ?? [];
  $("load-more").hidden = true;
  $("tab-content").replaceChildren(
    slides.length === 0
      ? h("p", { class: "hint" }, "No slides yet.")
      : h(
          "ol",
          { class: "slides" },
          ...slides.map((slide) =>
            h(
              "li",
              { "data-slide-id": slide.id },
              h("h3", {}, slide.title),
              ...(slide.body ? [h("p", { class: "body" }, slide.body)] : []),
              ...(slide.notes ? [h("p", { class: "notes" }, "Notes: ", slide.notes)] : []),
              h("p", { class: "meta" }, h("code", {}, slide.id)),
            ),
          ),
        ),
  );
}

/** A Sheet's rows and the Files and Sources lists come a page at a time from their own routes. */
async function reloadContentIfStale(): Promise<void> {
  const tab = selectedTab();
  if (!contentStale || tab === undefined) return;
  contentStale = false;
  if (tab.type === "sheet" || tab.type === "files" || tab.type === "sources") {
    nextCursor = null;
    $("tab-content").replaceChildren();
    await loadPage(tab);
  } else if (tab.type === "markdown") {
    $("tab-content").replaceChildren();
    $("load-more").hidden = true;
  }
}

async function loadPage(tab: Tab): Promise<void> {
  const cursor = nextCursor === null ? "" : `&cursor=${encodeURIComponent(nextCursor)}`;
  const content = $("tab-content");
  if (tab.type === "sheet") {
    const answer = await api<{ columns: string[]; rows: { id: string; index: number; cells: Record<string, string | number> }[]; next_cursor: string | null }>(
      "GET",
      `/tabs/${encodeURIComponent(tab.id)}?limit=100${cursor}`,
    );
    if (selected !== tab.id) return;
    if (!answer.ok) return say(`Could not read the Sheet: ${answer.error.message}`);
    const { columns, rows } = answer.value;
    let body = content.querySelector("tbody");
    if (body === null) {
      body = h("tbody");
      const head = h("tr", {}, h("th", { scope: "col" }, "#"), ...columns.map((column) => h("th", { scope: "col" }, column)));
      content.replaceChildren(h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": `${tab.label} rows` }, h("table", {}, h("thead", {}, head), body)));
    }
    body.append(
      ...rows.map((row) => h("tr", { "data-row-id": row.id }, h("th", { scope: "row" }, String(row.index + 1)), ...columns.map((column) => h("td", {}, String(row.cells[column] ?? ""))))),
    );
    if (rows.length === 0 && nextCursor === null) content.append(h("p", { class: "hint" }, "No rows yet."));
    nextCursor = answer.value.next_cursor;
  } else {
    const kind = tab.type === "files" ? "files" : "sources";
    type Item = { id: string; title?: string; url?: string; description?: string; name?: string; media_type?: string; size_bytes?: number; added_at: string };
    const answer = await api<{ items: Item[]; next_cursor: string | null }>("GET", `/attachments?kind=${kind}&limit=50${cursor}`);
    if (selected !== tab.id) return;
    if (!answer.ok) return say(`Could not read the ${kind}: ${answer.error.message}`);
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
    nextCursor = answer.value.next_cursor;
  }
  $("load-more").hidden = nextCursor === null;
}

let feedShown = 0;
/** At most this many entries stay on the page (the log keeps 1,000). */
const FEED_SHOWN = 500;

function renderFeed(): void {
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
function relabelFeed(): void {
  const labels = new Map(note?.tabs.map((tab) => [tab.id, tab.label]));
  for (const span of $("feed").querySelectorAll<HTMLElement>("bdi.tab")) {
    const id = span.dataset.tabId ?? "";
    const label = labels.get(id);
    const text = label === undefined ? id : `“${label}” (${id})`;
    if (span.textContent !== text) span.textContent = text;
  }
}

// ---- the person's actions -----------------------------------------------------------------

/**
 * One write through the person's API with the version the person is looking at; `done` runs on
 * success, before the re-read shows it. A conflict re-reads and says so. Answers whether it was done.
 */
async function write<T extends { version: number }>(what: string, method: string, path: string, body: Record<string, unknown> = {}, done?: (value: T) => void): Promise<boolean> {
  if (note === null || stopped) return false;
  const version = note.version;
  const answer = method === "DELETE" ? await api<T>(method, `${path}?expected_version=${version}`) : await api<T>(method, path, { ...body, expected_version: version });
  if (answer.ok) {
    // It committed on the version the page showed, so nobody else wrote in between: the person's next change may
    // carry the new version before the re-read has shown this one, instead of meeting their own change as a conflict.
    if (note !== null && note.version === version) {
      note.version = answer.value.version;
      $("note-version").textContent = String(note.version);
    }
    done?.(answer.value);
    say(`${what}: done, version ${answer.value.version}.`);
    await scheduleRead();
    return true;
  }
  if (answer.error.code === "version_conflict") {
    await scheduleRead();
    say(`${what}: not done. The Note changed while you were looking at version ${version}; it now shows version ${note.version}. Check it and try again.`);
    return false;
  }
  if (answer.status === 0) {
    // No answer: the change may or may not have been made. What the Note holds now says.
    await scheduleRead();
    say(`${what}: no answer from the server, so it may or may not be done; the page shows the Note as it is now.`);
    return false;
  }
  if (answer.status !== 401) say(`${what}: not done. ${answer.error.message}`);
  return false;
}

function bind(): void {
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
    void write("Rename", "PATCH", `/tabs/${encodeURIComponent(tab.id)}`, { label }).then((done) => {
      if (done) renameBase = input.value;
    });
  });
  const move = (delta: number) => () => {
    const tab = selectedTab();
    if (tab === undefined || note === null) return;
    const position = note.tabs.indexOf(tab) + delta;
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
  $<HTMLFormElement>("markdown-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (note === null) return;
    if (markdownBase !== null && note.markdown !== markdownBase) {
      say("Not saved: the Markdown was changed by someone else while you were editing. Copy what you need, then discard your edits to see theirs.");
      return;
    }
    const text = $<HTMLTextAreaElement>("markdown-text").value;
    void write("Save Markdown", "PUT", "/markdown", { text }).then((done) => {
      if (done) markdownBase = text;
    });
  });
  $("markdown-reload").addEventListener("click", () => {
    markdownBase = null;
    if (note !== null) syncMarkdown(note.markdown);
    say("Your Markdown edits were discarded.");
  });
  $("approval-toggle").addEventListener("click", () => {
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
  if (note === null || stopped) return;
  seen = note.version;
  await reloadContentIfStale();
  await loadFeed(seen);
  connect();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => void start());
else void start();
