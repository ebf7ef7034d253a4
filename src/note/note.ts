/**
 * The rules of one Note (SPEC §3, §5, §6): who may use it, the order of a
 * write's checks, tab identity, versions, idempotency and sources. Plain
 * TypeScript over a synchronous `NoteStore`; the Durable Object, the unit
 * tests and the simulations all run this same code.
 */
import type {
  AttachmentPage,
  Caller,
  Changed,
  CommandName,
  Commands,
  CreatedTab,
  Input,
  Output,
  SlideInput,
  SlideOutput,
  TabSummary,
} from "./commands.js";
import { CONNECTOR_COMMANDS, KEYED_COMMANDS } from "./commands.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { invalidArguments, limitExceeded, noteNotFound, type NoteError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { fail, ok, type Result } from "./result.js";
import type { NoteMeta, NoteStore, Slide, TabRow } from "./store.js";
import { DEFAULT_LABELS, FIXED_TAB_LABELS, FIXED_TABS, isTabType, newTabId } from "./tab-id.js";
import { parseSourceUrl } from "./url.js";
import { Checks } from "./validate.js";

export interface NoteOptions {
  /** Milliseconds since the epoch; tab IDs and timestamps read it. */
  now: () => number;
  /**
   * What production must never do, for the simulations (npm run sim) to show
   * what the three promises prevent. The Durable Object never sets it.
   */
  counterfactual?: Counterfactual;
}

export interface Counterfactual {
  /** Check `expected_version` before the idempotency key (this server checks the key first). */
  versionBeforeKey?: boolean;
  /** Store every citation, even of a page already attached under another spelling (the in-memory store only). */
  noUrlDedupe?: boolean;
}

/** What a write's target step decided: a change to commit, or an answer without one. */
type Applied<T> = { commit: true; change: Omit<T, "version" | "replayed"> } | { commit: false; answer: T };

function changed<T>(change: Omit<T, "version" | "replayed">): Result<Applied<T>> {
  return ok({ commit: true, change });
}

type Handler<K extends CommandName> = (caller: Caller, input: Input<K>) => Result<Output<K>>;

/** Thrown inside a transaction to roll it back and carry the failure out. */
class Rollback {
  constructor(readonly error: NoteError) {}
}

export class Note {
  readonly #store: NoteStore;
  readonly #now: () => number;
  readonly #counterfactual: Counterfactual;
  readonly #handlers: { [K in CommandName]: Handler<K> };

  constructor(
    readonly id: string,
    store: NoteStore,
    options: NoteOptions,
  ) {
    this.#store = store;
    this.#now = options.now;
    this.#counterfactual = options.counterfactual ?? {};
    this.#handlers = {
      list_tabs: (c) => this.#listTabs(c),
      read_tab: (c, i) => this.#readTab(c, i),
      create_tab: (c, i) => this.#keyed("create_tab", c, i, (meta) => this.#createTab(meta, i)),
      edit_tab: (c, i) => this.#keyed("edit_tab", c, i, () => this.#editTab(i)),
      add_source: (c, i) => this.#keyed("add_source", c, i, (meta) => this.#addSource(meta, i)),
      list_attachments: (c, i) => this.#listAttachments(c, i),
      create_note: (c, i) => this.#createNote(c, i),
      read_note: (c) => this.#readNote(c),
      set_approval: (c, i) => this.#change(c, i, (meta) => this.#setApproval(meta, i.approved)),
      add_member: (c, i) => this.#change(c, i, () => this.#addMember(i.user)),
      add_tab: (c, i) => this.#change(c, i, (meta) => this.#addTab(meta, i)),
      rename_tab: (c, i) => this.#change(c, i, () => this.#renameTab(i.tab_id, i.label)),
      move_tab: (c, i) => this.#change(c, i, () => this.#moveTab(i.tab_id, i.position)),
      delete_tab: (c, i) => this.#change(c, i, (meta) => this.#deleteTab(meta, i.tab_id)),
      set_slides: (c, i) => this.#change(c, i, () => this.#setSlides(i.tab_id, i.slides)),
      set_markdown: (c, i) => this.#change(c, i, () => this.#setMarkdown(i.text)),
      add_file: (c, i) => this.#change(c, i, (meta) => this.#addFile(meta, i)),
    };
  }

  /**
   * Runs one operation in one transaction. A failure of any check returns
   * its error and leaves the Note exactly as it was.
   */
  execute<K extends CommandName>(caller: Caller, name: K, input: Input<K>): Result<Output<K>> {
    const handler = this.#handlers[name] as Handler<K> | undefined;
    if (handler === undefined) return fail(invalidArguments([{ path: "operation", problem: `unknown operation "${String(name)}"` }]));
    if (caller.channel === "connector" && !CONNECTOR_COMMANDS.has(name)) {
      return fail(invalidArguments([{ path: "operation", problem: `"${name}" is the person's, in the app; connectors cannot use it` }]));
    }
    try {
      return this.#store.transaction(() => {
        const result = handler(caller, input);
        if (!result.ok) throw new Rollback(result.error);
        return result;
      });
    } catch (thrown) {
      if (thrown instanceof Rollback) return fail(thrown.error);
      throw thrown;
    }
  }

  /** Drops idempotency records older than the retention window; returns how many, and the oldest kept. */
  pruneIdempotency(retentionMs: number): { pruned: number; oldest: number | null } {
    return this.#store.transaction(() => {
      const pruned = this.#store.pruneIdempotency(this.#now() - retentionMs);
      return { pruned, oldest: this.#store.oldestIdempotency() };
    });
  }

  /** The Note's current meta, or null before it was created. */
  meta(): NoteMeta | null {
    return this.#store.readMeta();
  }

  // ---- access -------------------------------------------------------------

  /** The Note, if this caller may use it through this channel. */
  #open(caller: Caller): Result<NoteMeta> {
    const meta = this.#store.readMeta();
    // A Note the caller is not a member of reads exactly like one that does not exist.
    if (meta === null || !this.#store.isMember(caller.user)) return fail(noteNotFound(this.id));
    if (caller.channel === "connector" && !meta.approved) {
      return fail({
        code: "note_not_approved",
        message: `Note "${this.id}" is not approved for connectors. Ask its owner to approve it in the app.`,
        note_id: this.id,
      });
    }
    return ok(meta);
  }

  #commit(meta: NoteMeta): number {
    meta.version += 1;
    this.#store.writeMeta(meta);
    return meta.version;
  }

  // ---- agent's reads ------------------------------------------------------

  #listTabs(caller: Caller): Result<Output<"list_tabs">> {
    const opened = this.#open(caller);
    if (!opened.ok) return opened;
    const meta = opened.value;
    return ok({ note_id: this.id, title: meta.title, version: meta.version, tabs: this.#store.tabs().map(summary) });
  }

  #readTab(caller: Caller, input: Input<"read_tab">): Result<Output<"read_tab">> {
    const opened = this.#open(caller);
    if (!opened.ok) return opened;
    const found = this.#findTab(input.tab_id);
    if (!found.ok) return found;
    const tab = found.value;
    const base = { note_id: this.id, version: opened.value.version, tab: summary(tab) };
    if (tab.type === "slides") return ok(Object.assign(base, { slides: numbered(this.#store.slides(tab.id)) }));
    if (tab.type === "markdown") return ok(Object.assign(base, { text: this.#store.markdown() }));
    const hint = tab.type === "sheet" ? "Sheet content is edited by the person in the app." : "Use list_note_attachments for its items.";
    return fail(wrongTabType(tab, ["slides", "markdown"], `Tab "${tab.id}" is a ${tab.type} tab; read_note_tab reads slides and markdown tabs. ${hint}`));
  }

  #listAttachments(caller: Caller, input: Input<"list_attachments">): Result<AttachmentPage> {
    const checks = new Checks();
    checks.integer("limit", input.limit, 1, LIMITS.pageSize);
    if (input.kind !== "sources" && input.kind !== "files") checks.add("kind", 'must be "sources" or "files"');
    let after = 0;
    if (input.cursor !== undefined && checks.issues.length === 0) {
      const decoded = decodeCursor(this.id, input.kind, input.cursor);
      if (decoded === null) checks.add("cursor", `not a cursor this Note issued for ${input.kind}; pass next_cursor exactly as returned, or omit it to start over`);
      else after = decoded;
    }
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    const opened = this.#open(caller);
    if (!opened.ok) return opened;

    const limit = input.limit ?? LIMITS.pageSize;
    // One row more than the page tells whether another page exists.
    if (input.kind === "sources") {
      const rows = this.#store.attachments("sources", after, limit + 1);
      const page = rows.slice(0, limit);
      const items = page.map((s) => ({ id: `source-${s.seq}`, title: s.title, url: s.url, description: s.description, added_at: iso(s.added_at) }));
      return ok({ note_id: this.id, kind: "sources", items, next_cursor: this.#next("sources", rows.length > limit, page.at(-1)?.seq) });
    }
    const rows = this.#store.attachments("files", after, limit + 1);
    const page = rows.slice(0, limit);
    const items = page.map((f) => ({ id: `file-${f.seq}`, name: f.name, media_type: f.media_type, size_bytes: f.size_bytes, added_at: iso(f.added_at) }));
    return ok({ note_id: this.id, kind: "files", items, next_cursor: this.#next("files", rows.length > limit, page.at(-1)?.seq) });
  }

  #next(kind: "sources" | "files", more: boolean, last: number | undefined): string | null {
    return more && last !== undefined ? encodeCursor(this.id, kind, last) : null;
  }

  // ---- agent's writes -----------------------------------------------------

  /**
   * The order of every agent write (SPEC §3): access, then the idempotency
   * key, then the version, then the target. The key comes before the version
   * because a resend after a lost response always carries the version from
   * before the lost commit.
   */
  #keyed<K extends (typeof KEYED_COMMANDS)[number]>(
    tool: K,
    caller: Caller,
    input: Input<K>,
    apply: (meta: NoteMeta) => Result<Applied<Output<K>>>,
  ): Result<Output<K>> {
    const checks = new Checks();
    checks.write(input);
    validateKeyed(tool, input, checks);
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));

    const opened = this.#open(caller);
    if (!opened.ok) return opened;
    const meta = opened.value;

    // Only the simulations ever run the counterfactual order, version first.
    const versionFirst = this.#counterfactual.versionBeforeKey === true;
    const early =
      (versionFirst ? versionCheck(input.expected_version, meta.version) : this.#replay(tool, input.idempotency_key)) ??
      (versionFirst ? this.#replay(tool, input.idempotency_key) : versionCheck(input.expected_version, meta.version));
    if (early !== null) return early as Result<Output<K>>;

    const applied = apply(meta);
    if (!applied.ok) return applied;
    if (!applied.value.commit) return ok(applied.value.answer);
    // The change is this call's own object: completing it in place spares a copy.
    const result = applied.value.change as Output<K> & { version: number; replayed: boolean };
    result.version = this.#commit(meta);
    result.replayed = false;
    this.#store.recordIdempotency({ key: input.idempotency_key, tool, result, created_at: this.#now() });
    return ok(result);
  }

  /** The recorded first result under this key, marked replayed; null for a key not seen. */
  #replay(tool: string, key: string): Result<unknown> | null {
    const seen = this.#store.idempotency(key);
    if (seen === null) return null;
    if (seen.tool !== tool) {
      return fail({
        code: "idempotency_key_reused",
        message: `The idempotency key was first used for ${seen.tool} in this Note; use a new key for a new intent.`,
        idempotency_key: key,
        first_used_by: seen.tool,
      });
    }
    // A fresh copy of the first result: marking it changes nothing kept.
    const first = seen.result as { replayed?: boolean };
    first.replayed = true;
    return ok(first);
  }

  #createTab(meta: NoteMeta, input: Pick<Input<"create_tab">, "tab_type" | "label" | "slides">): Result<Applied<CreatedTab>> {
    // The fixed tabs are never deleted: every other tab is a Slides or Sheet tab.
    const added = meta.tab_count - FIXED_TABS.length;
    if (added >= LIMITS.tabsPerNote) return fail(limitExceeded("tabs_per_note", LIMITS.tabsPerNote, "This Note has as many Slides and Sheet tabs as it may"));
    const slides = input.slides ?? [];
    if (input.tab_type === "sheet" && slides.length > 0) {
      return fail(invalidArguments([{ path: "slides", problem: "only a slides tab can be created with slides" }]));
    }
    const tab: TabRow = {
      id: newTabId(input.tab_type, meta.next_tab_n, this.#now()),
      type: input.tab_type,
      label: input.label?.trim() ?? DEFAULT_LABELS[input.tab_type],
      position: meta.tab_count,
      slide_count: slides.length,
    };
    meta.next_tab_n += 1;
    meta.tab_count += 1;
    this.#store.insertTab(tab);
    if (slides.length > 0) this.#store.appendSlides(tab.id, 0, slides.map(toSlide));
    return changed({ note_id: this.id, tab_id: tab.id, tab_type: input.tab_type, label: tab.label, position: tab.position, slide_count: tab.slide_count });
  }

  #editTab(input: Input<"edit_tab">): Result<Applied<Output<"edit_tab">>> {
    const found = this.#findTab(input.tab_id);
    if (!found.ok) return found;
    const tab = found.value;
    if (tab.type !== "slides") {
      return fail(wrongTabType(tab, ["slides"], `Tab "${tab.id}" is a ${tab.type} tab; edit_note_tab adds slides to slides tabs only.`));
    }
    const slides: SlideInput[] =
      input.operation === "slide_add" ? [{ title: input.title ?? "", body: input.body, notes: input.notes }] : (input.slides ?? []);
    if (tab.slide_count + slides.length > LIMITS.slidesPerTab) {
      return fail(limitExceeded("slides_per_tab", LIMITS.slidesPerTab, `Tab "${tab.id}" has ${tab.slide_count} slides; ${slides.length} more would pass the limit`));
    }
    this.#store.appendSlides(tab.id, tab.slide_count, slides.map(toSlide));
    this.#store.updateTab({ ...tab, slide_count: tab.slide_count + slides.length });
    return changed({ note_id: this.id, tab_id: tab.id, slides_added: slides.length, slide_count: tab.slide_count + slides.length });
  }

  #addSource(meta: NoteMeta, input: Input<"add_source">): Result<Applied<Output<"add_source">>> {
    const parsed = parseSourceUrl(input.url);
    if (!parsed.ok) {
      return fail({ code: "invalid_url", message: `url: ${parsed.reason}.`, url: input.url, reason: parsed.reason });
    }
    const existing = this.#counterfactual.noUrlDedupe === true ? null : this.#store.sourceByNormalizedUrl(parsed.normalized);
    if (existing !== null) {
      // The app refuses a link that is already attached; so does the connector, without a write.
      return ok({
        commit: false,
        answer: {
          note_id: this.id,
          source_id: `source-${existing.seq}`,
          title: existing.title,
          url: existing.url,
          normalized_url: existing.normalized_url,
          already_attached: true,
          version: meta.version,
          replayed: false,
        },
      });
    }
    if (meta.source_count >= LIMITS.sourcesPerNote) {
      return fail(limitExceeded("sources_per_note", LIMITS.sourcesPerNote, "This Note has as many sources as it may"));
    }
    const title = input.title.trim();
    const seq = this.#store.insertSource({
      title,
      url: parsed.url,
      normalized_url: parsed.normalized,
      description: input.description ?? "",
      added_at: this.#now(),
    });
    meta.source_count += 1;
    return changed({ note_id: this.id, source_id: `source-${seq}`, title, url: parsed.url, normalized_url: parsed.normalized, already_attached: false });
  }

  /** The tab with exactly this ID. Never a type, never a label. */
  #findTab(tabId: string): Result<TabRow> {
    const tab = this.#store.tab(tabId);
    if (tab !== null) return ok(tab);
    const byLabel = this.#store.tabs().some((t) => t.label === tabId);
    const what = isTabType(tabId) ? "a tab type" : byLabel ? "a tab label" : null;
    const hint =
      'Tab IDs look like "slides-9-mh8z1k2a" (or "markdown", "files", "sources" for the fixed tabs); call list_note_tabs and pass the id of the tab you mean.';
    return fail({
      code: "tab_not_found",
      message: what === null ? `No tab "${tabId}" in this Note. ${hint}` : `"${tabId}" is ${what}, not a tab ID. ${hint}`,
      tab_id: tabId,
      hint,
    });
  }

  // ---- the person's app ---------------------------------------------------

  #createNote(caller: Caller, input: Input<"create_note">): Result<Output<"create_note">> {
    const checks = new Checks();
    checks.text("title", input.title, LIMITS.noteTitleLength, { required: true, nonBlank: true });
    checks.text("markdown", input.markdown, LIMITS.markdownLength);
    checks.text("user", caller.user, LIMITS.userIdLength, { required: true, nonBlank: true });
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    if (this.#store.readMeta() !== null) {
      return fail({ code: "note_exists", message: `A Note "${this.id}" already exists; choose another ID.`, note_id: this.id });
    }
    const meta: NoteMeta = {
      note_id: this.id,
      title: input.title.trim(),
      version: 1,
      approved: false,
      next_tab_n: 1,
      tab_count: FIXED_TABS.length,
      source_count: 0,
      file_count: 0,
      created_at: this.#now(),
    };
    this.#store.writeMeta(meta);
    this.#store.addMember(caller.user, "owner");
    FIXED_TABS.forEach((type, position) =>
      this.#store.insertTab({ id: type, type, label: FIXED_TAB_LABELS[type], position, slide_count: 0 }),
    );
    if (input.markdown !== undefined) this.#store.writeMarkdown(input.markdown);
    return ok({ note_id: this.id, title: meta.title, approved: false, version: 1 });
  }

  #readNote(caller: Caller): Result<Output<"read_note">> {
    const opened = this.#open(caller);
    if (!opened.ok) return opened;
    const meta = opened.value;
    const tabs = this.#store.tabs().map((t) => (t.type === "slides" ? { ...summary(t), slides: numbered(this.#store.slides(t.id)) } : summary(t)));
    return ok({
      note_id: this.id,
      title: meta.title,
      approved: meta.approved,
      version: meta.version,
      members: this.#store.members(),
      markdown: this.#store.markdown(),
      tabs,
      source_count: meta.source_count,
      file_count: meta.file_count,
    });
  }

  /**
   * A change by the person: access, the optional version check, the change,
   * and one version bump. A change that changes nothing commits nothing.
   */
  #change(
    caller: Caller,
    input: { expected_version?: number | undefined },
    apply: (meta: NoteMeta) => Result<Partial<Changed> | "unchanged">,
  ): Result<Changed> {
    const checks = new Checks();
    checks.integer("expected_version", input.expected_version, 1, Number.MAX_SAFE_INTEGER);
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    const opened = this.#open(caller);
    if (!opened.ok) return opened;
    const meta = opened.value;
    if (input.expected_version !== undefined && input.expected_version !== meta.version) {
      return fail({
        code: "version_conflict",
        message: `The Note changed: expected version ${input.expected_version}, current version ${meta.version}.`,
        expected_version: input.expected_version,
        current_version: meta.version,
      });
    }
    const applied = apply(meta);
    if (!applied.ok) return applied;
    if (applied.value === "unchanged") return ok({ note_id: this.id, version: meta.version });
    // The change is this call's own object: completing it in place spares a copy.
    const changed = applied.value;
    changed.note_id = this.id;
    changed.version = this.#commit(meta);
    return ok(changed as Changed);
  }

  #setApproval(meta: NoteMeta, approved: boolean): Result<"unchanged" | Partial<Changed>> {
    if (meta.approved === approved) return ok("unchanged");
    meta.approved = approved;
    return ok({});
  }

  #addMember(user: string): Result<"unchanged" | Partial<Changed>> {
    const checks = new Checks();
    checks.text("user", user, LIMITS.userIdLength, { required: true, nonBlank: true });
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    if (this.#store.isMember(user)) return ok("unchanged");
    this.#store.addMember(user, "editor");
    return ok({});
  }

  #addTab(meta: NoteMeta, input: Input<"add_tab">): Result<Partial<Changed>> {
    const checks = new Checks();
    checks.label("label", input.label, false);
    if (input.tab_type !== "slides" && input.tab_type !== "sheet") checks.add("tab_type", 'must be "slides" or "sheet"');
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    const created = this.#createTab(meta, input);
    if (!created.ok) return created;
    const tabId = created.value.commit ? created.value.change.tab_id : "";
    if (input.position !== undefined) {
      const moved = this.#moveTab(tabId, input.position);
      if (!moved.ok) return moved;
    }
    const placed = this.#store.tab(tabId);
    return ok(placed === null ? {} : { tab: summary(placed) });
  }

  #renameTab(tabId: string, label: string): Result<"unchanged" | Partial<Changed>> {
    const checks = new Checks();
    checks.label("label", label, true);
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    const found = this.#addedTab(tabId, "renamed");
    if (!found.ok) return found;
    const trimmed = label.trim();
    if (found.value.label === trimmed) return ok("unchanged");
    const renamed = { ...found.value, label: trimmed };
    this.#store.updateTab(renamed);
    return ok({ tab: summary(renamed) });
  }

  #moveTab(tabId: string, position: number): Result<"unchanged" | Partial<Changed>> {
    const found = this.#findTab(tabId);
    if (!found.ok) return found;
    const tabs = this.#store.tabs();
    const checks = new Checks();
    checks.integer("position", position, 0, tabs.length - 1);
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    const from = tabs.findIndex((t) => t.id === tabId);
    if (from === position) return ok("unchanged");
    const [moving] = tabs.splice(from, 1);
    if (moving === undefined) return fail(noteNotFound(this.id));
    tabs.splice(position, 0, moving);
    this.#renumber(tabs);
    return ok({ tab: summary({ ...moving, position }) });
  }

  #deleteTab(meta: NoteMeta, tabId: string): Result<Partial<Changed>> {
    const found = this.#addedTab(tabId, "deleted");
    if (!found.ok) return found;
    this.#store.deleteTab(tabId);
    meta.tab_count -= 1;
    this.#renumber(this.#store.tabs());
    return ok({});
  }

  #setSlides(tabId: string, slides: SlideInput[]): Result<Partial<Changed>> {
    const checks = new Checks();
    if (slides.length > LIMITS.slidesPerTab) checks.add("slides", `at most ${LIMITS.slidesPerTab} slides per tab (got ${slides.length})`);
    else slides.forEach((slide, i) => checks.slide(slide, `slides[${i}].`));
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    const found = this.#findTab(tabId);
    if (!found.ok) return found;
    const tab = found.value;
    if (tab.type !== "slides") return fail(wrongTabType(tab, ["slides"], `Tab "${tab.id}" is a ${tab.type} tab, not a slides tab.`));
    this.#store.replaceSlides(tab.id, slides.map(toSlide));
    const updated = { ...tab, slide_count: slides.length };
    this.#store.updateTab(updated);
    return ok({ tab: summary(updated) });
  }

  #setMarkdown(text: string): Result<"unchanged" | Partial<Changed>> {
    const checks = new Checks();
    checks.text("text", text, LIMITS.markdownLength, { required: true });
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    if (this.#store.markdown() === text) return ok("unchanged");
    this.#store.writeMarkdown(text);
    return ok({});
  }

  #addFile(meta: NoteMeta, input: Input<"add_file">): Result<Partial<Changed>> {
    const checks = new Checks();
    checks.text("name", input.name, LIMITS.fileNameLength, { required: true, nonBlank: true });
    checks.text("media_type", input.media_type, LIMITS.mediaTypeLength, { required: true, nonBlank: true });
    if (input.media_type !== undefined && !/^[\w.+-]+\/[\w.+-]+$/.test(input.media_type)) checks.add("media_type", 'must look like "type/subtype"');
    checks.integer("size_bytes", input.size_bytes, 0, LIMITS.fileSizeBytes);
    if (checks.issues.length > 0) return fail(invalidArguments(checks.issues));
    if (meta.file_count >= LIMITS.filesPerNote) return fail(limitExceeded("files_per_note", LIMITS.filesPerNote, "This Note has as many files as it may"));
    const seq = this.#store.insertFile({ name: input.name.trim(), media_type: input.media_type, size_bytes: input.size_bytes, added_at: this.#now() });
    meta.file_count += 1;
    return ok({ file_id: `file-${seq}` });
  }

  /** A Slides or Sheet tab: the fixed tabs cannot be renamed or deleted. */
  #addedTab(tabId: string, verb: string): Result<TabRow> {
    const found = this.#findTab(tabId);
    if (!found.ok) return found;
    const tab = found.value;
    if (tab.type !== "slides" && tab.type !== "sheet") {
      return fail(wrongTabType(tab, ["slides", "sheet"], `The ${tab.type} tab is fixed; it cannot be ${verb}.`));
    }
    return found;
  }

  #renumber(tabs: TabRow[]): void {
    tabs.forEach((tab, position) => {
      if (tab.position !== position) this.#store.updateTab({ ...tab, position });
    });
  }
}

/** Checks of an agent write's own fields, beyond the common ones. */
function validateKeyed(tool: (typeof KEYED_COMMANDS)[number], input: Commands[typeof tool]["input"], checks: Checks): void {
  if (tool === "create_tab") {
    const i = input as Input<"create_tab">;
    if (i.tab_type !== "slides" && i.tab_type !== "sheet") checks.add("tab_type", 'must be "slides" or "sheet"');
    checks.label("label", i.label, false);
    if (i.slides !== undefined) checks.slides("slides", i.slides, 0);
  } else if (tool === "edit_tab") {
    const i = input as Input<"edit_tab">;
    checks.text("tab_id", i.tab_id, 100, { required: true, nonBlank: true });
    if (i.operation === "slide_add") {
      checks.slide({ title: i.title as string, body: i.body, notes: i.notes });
      if (i.slides !== undefined) checks.add("slides", "not allowed with slide_add; use slides_add_outline");
    } else if (i.operation === "slides_add_outline") {
      if (i.slides === undefined) checks.add("slides", "required for slides_add_outline");
      else checks.slides("slides", i.slides, 1);
      for (const field of ["title", "body", "notes"] as const) {
        if (i[field] !== undefined) checks.add(field, "not allowed with slides_add_outline; put slides in `slides`");
      }
    } else {
      checks.add("operation", 'must be "slide_add" or "slides_add_outline"');
    }
  } else {
    const i = input as Input<"add_source">;
    checks.text("title", i.title, LIMITS.sourceTitleLength, { required: true, nonBlank: true });
    // The URL's characters are parseSourceUrl's to judge, as invalid_url.
    if (typeof i.url !== "string") checks.add("url", "required");
    checks.text("description", i.description, LIMITS.sourceDescriptionLength);
  }
}

function versionCheck(expected: number, current: number): Result<never> | null {
  if (expected === current) return null;
  return fail({
    code: "version_conflict",
    message: `The Note changed: expected version ${expected}, current version ${current}. Call list_note_tabs, check your target, and retry with the current version.`,
    expected_version: expected,
    current_version: current,
  });
}

function wrongTabType(tab: TabRow, expected: string[], message: string): NoteError {
  return { code: "wrong_tab_type", message, tab_id: tab.id, tab_type: tab.type, expected };
}

function summary(tab: TabRow): TabSummary {
  return tab.type === "slides"
    ? { id: tab.id, type: tab.type, label: tab.label, position: tab.position, slide_count: tab.slide_count }
    : { id: tab.id, type: tab.type, label: tab.label, position: tab.position };
}

function numbered(slides: Slide[]): SlideOutput[] {
  return slides.map((s, index) => ({ index, ...s }));
}

function toSlide(input: SlideInput): Slide {
  return { title: input.title.trim(), body: input.body ?? "", notes: input.notes ?? "" };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
