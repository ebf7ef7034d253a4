/**
 * A reference model of one Note for the generated-history test: what each
 * operation must answer and which rows it must leave. Written from SPEC.md and
 * the README's limits, sharing no code with src/note, so that a test comparing
 * the two can fail.
 */

export type ErrorCode =
  | "invalid_arguments"
  | "note_not_found"
  | "note_not_approved"
  | "note_exists"
  | "version_conflict"
  | "tab_not_found"
  | "wrong_tab_type"
  | "idempotency_key_reused"
  | "invalid_url"
  | "limit_exceeded";

export interface Caller {
  user: string;
  channel: "connector" | "app";
}
export type Row = Record<string, unknown>;
export type Tables = Record<string, Row[]>;
export interface Call {
  caller: Caller;
  name: string;
  input: Row;
}

/** The README's limits, restated: a limit changed in src/note alone fails this test. */
export const LIMIT = {
  noteTitle: 200,
  label: 100,
  slideTitle: 300,
  slideText: 10_000,
  slidesPerCall: 20,
  slidesPerTab: 500,
  tabs: 100,
  sources: 100_000,
  files: 10_000,
  sourceTitle: 500,
  description: 2_000,
  fileName: 255,
  mediaType: 255,
  fileSize: 2 ** 40,
  markdown: 500_000,
  key: 256,
  user: 128,
  page: 50,
  slidesPage: 50,
} as const;

export const FIXED = ["markdown", "files", "sources"] as const;
const FIXED_LABEL: Record<string, string> = { markdown: "Markdown", files: "Files", sources: "Sources" };
const DEFAULT_LABEL: Record<string, string> = { slides: "Slides", sheet: "Sheet" };
const AGENT_OPERATIONS = new Set(["list_tabs", "read_tab", "list_attachments", "create_tab", "edit_tab", "add_source"]);

/** Citations the histories use, each with the stored and the normalized form SPEC §5 gives it (null: refused). */
export const URLS: Record<string, { given: string; url: string; normalized: string } | { given: string; url: null }> = {
  plain: { given: "https://example.org/a", url: "https://example.org/a", normalized: "https://example.org/a" },
  www: { given: "www.example.org/a/", url: "https://www.example.org/a/", normalized: "https://example.org/a" },
  tracking: { given: "example.org/b?utm_medium=x&q=1", url: "https://example.org/b?utm_medium=x&q=1", normalized: "https://example.org/b?q=1" },
  upper: { given: "https://Example.org/c#x", url: "https://example.org/c#x", normalized: "https://example.org/c" },
  http: { given: "http://example.org/c/", url: "http://example.org/c/", normalized: "https://example.org/c" },
  other: { given: "https://example.net/d?q=2", url: "https://example.net/d?q=2", normalized: "https://example.net/d?q=2" },
  javascript: { given: "javascript:alert(1)", url: null },
  localhost: { given: "https://localhost/x", url: null },
  credentials: { given: "https://u:p@example.org/", url: null },
  space: { given: "https://example.org/a b", url: null },
};

/**
 * The order of a call's checks (SPEC §3). A failure in an earlier stage hides
 * every later one; within a stage the order is not a promise, so any of its
 * failures is a right answer.
 */
const DOOR = 0;
const VALIDATE = 1;
/** An argument's own check with its own code (a URL that is no page: invalid_url), after the fields' shapes. */
const PREPARE = 1.5;
const ACCESS = 2;
/** Checks of the arguments against the Note (a position within the strip), once the caller may see it. */
const AGAINST_NOTE = 3;
const KEY = 4;
const VERSION = 5;
const TARGET = 6;

interface Failure {
  code: ErrorCode;
  stage: number;
  /**
   * A check of the arguments alone that a design may also run among the target
   * checks (today's person's commands do): both places are right.
   */
  late?: boolean;
  /** Fields the error object must carry. */
  fields?: Row;
}

export interface Success {
  /** Whether it writes anything: a success that does not leaves every table byte-identical. */
  writes: boolean;
  /** The problems of an answer against what the model expects (none: it is right). */
  check(value: Row, window: TimeWindow): string[];
  /** Takes the answer into the model. */
  apply(value: Row): void;
}

export interface Expectation {
  /** Error codes that are right answers (empty: the call must succeed). */
  codes: ErrorCode[];
  /** Fields each of those errors must carry. */
  fields: Partial<Record<ErrorCode, Row>>;
  /** What a success must look like (null: the call must fail). */
  success: Success | null;
}

interface Plan {
  failures: Failure[];
  /** A key this tool already committed: the first result comes back. */
  replay?: Success;
  success?: () => Success;
}

/** Milliseconds before and after a call: a new tab ID's time lies between. */
export type TimeWindow = [number, number];

interface Tab {
  id: string;
  type: string;
  label: string;
  slide_count: number;
}
interface Slide {
  /** The ID the Note gave it; "" until the model learns it (a deck the person replaced: its answer names no IDs). */
  id: string;
  title: string;
  body: string;
  notes: string;
}
interface KeyRecord {
  tool: string;
  result: Row;
  /** The call's own arguments, without the version and the key, as canonical JSON. */
  args: string;
  expected_version: unknown;
}
interface Meta {
  title: string;
  version: number;
  approved: boolean;
  next_tab_n: number;
  next_slide_n: number;
  source_count: number;
  file_count: number;
}

export class NoteModel {
  meta: Meta | null = null;
  readonly members = new Map<string, "owner" | "editor">();
  /** The strip, in order: a tab's position is its index. */
  strip: Tab[] = [];
  readonly slides = new Map<string, Slide[]>();
  markdown = "";
  readonly keys = new Map<string, KeyRecord>();
  readonly sources: { seq: number; title: string; url: string; normalized_url: string; description: string }[] = [];
  readonly files: { seq: number; name: string; media_type: string; size_bytes: number }[] = [];
  /** Every tab ID the Note handed out, deleted ones included, in order. */
  readonly seenTabIds: string[] = [];
  /** Every slide ID the Note handed out, deleted and replaced slides included. */
  readonly seenSlideIds = new Set<string>();
  /** Every well-formed key a keyed call carried, committed or not, in order. */
  readonly usedKeys: string[] = [];
  /** Every keyed call sent, for resending. */
  readonly keyedCalls: Call[] = [];
  /** Every cursor the Note handed out, with the list and the position it names. */
  readonly cursors: { cursor: string; kind: string; after: number }[] = [];
  #keyCounter = 0;

  constructor(readonly noteId: string) {}

  get version(): number {
    return this.meta?.version ?? 1;
  }

  freshKey(): string {
    this.#keyCounter += 1;
    return `key-${this.#keyCounter}`;
  }

  /** What a call must answer now, and what its success changes. */
  predict(call: Call): Expectation {
    if (KEYED.has(call.name) && wellFormedKey(call.input.idempotency_key) && !this.usedKeys.includes(call.input.idempotency_key as string)) {
      this.usedKeys.push(call.input.idempotency_key as string);
    }
    if (KEYED.has(call.name)) this.keyedCalls.push(call);
    return settle(this.#plan(call));
  }

  /** The rows every table must hold: the projection test/support/note-tables.ts makes of the real ones. */
  tables(): Tables {
    const meta = this.meta;
    return {
      meta:
        meta === null
          ? []
          : [
              {
                id: 1,
                note_id: this.noteId,
                title: meta.title,
                version: meta.version,
                approved: meta.approved,
                next_tab_n: meta.next_tab_n,
                tab_count: this.strip.length,
                source_count: meta.source_count,
                file_count: meta.file_count,
                created_at: TIME,
                deleted: false,
                next_slide_n: meta.next_slide_n,
              },
            ],
      members: [...this.members].map(([user, role]) => ({ user, role })),
      tabs: this.strip.map((t, position) => ({ id: t.id, type: t.type, label: t.label, position, slide_count: t.slide_count })),
      slides: [...this.slides].flatMap(([tab_id, deck]) => deck.map((s, idx) => ({ tab_id, idx, ...s }))),
      markdown: this.markdown === "" ? [] : [{ id: 1, text: this.markdown }],
      idempotency: [...this.keys].map(([key, r]) => ({ key, tool: r.tool, result: r.result, created_at: TIME, fingerprint: FINGERPRINT })),
      sources: this.sources.map((s) => ({ ...s, added_at: TIME })),
      files: this.files.map((f) => ({ ...f, added_at: TIME })),
    };
  }

  // ---- the plan of each operation ------------------------------------------

  #plan(call: Call): Plan {
    const { caller, name, input } = call;
    if (caller.channel === "connector" && !AGENT_OPERATIONS.has(name)) return { failures: [invalid(DOOR)] };
    switch (name) {
      case "create_note":
        return this.#createNote(caller, input);
      case "list_tabs":
        return this.#read(caller, () => ({ note_id: this.noteId, title: this.meta?.title, version: this.version, tabs: this.#summaries() }));
      case "read_note":
        return this.#read(caller, () => this.#wholeNote());
      case "read_tab":
        return this.#readTab(caller, input);
      case "list_attachments":
        return this.#listAttachments(caller, input);
      case "create_tab":
      case "edit_tab":
      case "add_source":
        return this.#keyed(name, caller, input);
      default:
        return this.#change(name, caller, input);
    }
  }

  #access(caller: Caller): Failure[] {
    if (this.meta === null || !this.members.has(caller.user)) return [{ code: "note_not_found", stage: ACCESS }];
    if (caller.channel === "connector" && !this.meta.approved) return [{ code: "note_not_approved", stage: ACCESS }];
    return [];
  }

  #createNote(caller: Caller, input: Row): Plan {
    const failures: Failure[] = [];
    if (!oneLine(input.title, LIMIT.noteTitle)) failures.push(invalid(VALIDATE));
    if (!text(input.markdown, LIMIT.markdown)) failures.push(invalid(VALIDATE));
    if (!text(caller.user, LIMIT.user, { required: true, nonBlank: true })) failures.push(invalid(VALIDATE));
    if (this.meta !== null) failures.push({ code: "note_exists", stage: TARGET });
    const title = String(input.title).trim();
    return {
      failures,
      success: () => ({
        writes: true,
        check: (value) => same({ note_id: this.noteId, title, approved: false, version: 1 }, value),
        apply: () => {
          this.meta = { title, version: 1, approved: false, next_tab_n: 1, next_slide_n: 1, source_count: 0, file_count: 0 };
          this.members.set(caller.user, "owner");
          this.strip = FIXED.map((id) => ({ id, type: id, label: FIXED_LABEL[id] as string, slide_count: 0 }));
          this.markdown = typeof input.markdown === "string" ? input.markdown : "";
        },
      }),
    };
  }

  #read(caller: Caller, answer: () => Row): Plan {
    return { failures: this.#access(caller), success: () => answers(answer()) };
  }

  #readTab(caller: Caller, input: Row): Plan {
    const failures = this.#access(caller);
    const tab = this.#tab(input.tab_id);
    if (typeof input.tab_id !== "string") failures.push(invalid(VALIDATE, true));
    else if (tab === undefined) failures.push({ code: "tab_not_found", stage: TARGET });
    else if (tab.type !== "slides" && tab.type !== "markdown") failures.push({ code: "wrong_tab_type", stage: TARGET });
    else if (tab.type === "markdown" && (input.limit !== undefined || input.cursor !== undefined)) failures.push(invalid(TARGET));
    if (input.limit !== undefined && !integer(input.limit, 1, LIMIT.slidesPage)) failures.push(invalid(VALIDATE));
    // A deck's cursor names the tab it was issued for, and the slide its next page starts at.
    let from = 0;
    if (input.cursor !== undefined) {
      const known = this.cursors.find((c) => c.cursor === input.cursor && c.kind === `slides:${String(input.tab_id)}`);
      if (known === undefined) failures.push(invalid(VALIDATE));
      else from = known.after;
    }
    const size = typeof input.limit === "number" ? input.limit : LIMIT.slidesPage;
    return {
      failures,
      success: () => {
        const t = tab as Tab;
        const base = { note_id: this.noteId, version: this.version, tab: this.#summary(t) };
        if (t.type !== "slides") return answers({ ...base, text: this.markdown });
        const deck = this.#deck(t.id);
        const slides = deck.slice(from, from + size).map((s, i) => ({ index: from + i, ...s }));
        const more = deck.length > from + size;
        return {
          writes: false,
          check: (value) => {
            const problems = same({ ...base, slides, more }, { ...value, more: value.next_cursor !== null, next_cursor: undefined });
            if (more && typeof value.next_cursor !== "string") problems.push(`next_cursor: expected a string, got ${show(value.next_cursor)}`);
            return problems;
          },
          apply: (value) => {
            if (typeof value.next_cursor === "string") this.cursors.push({ cursor: value.next_cursor, kind: `slides:${t.id}`, after: from + size });
          },
        };
      },
    };
  }

  #listAttachments(caller: Caller, input: Row): Plan {
    const failures: Failure[] = [];
    const kind = input.kind;
    if (kind !== "sources" && kind !== "files") failures.push(invalid(VALIDATE));
    if (input.limit !== undefined && !integer(input.limit, 1, LIMIT.page)) failures.push(invalid(VALIDATE));
    let after = 0;
    if (input.cursor !== undefined) {
      const known = this.cursors.find((c) => c.cursor === input.cursor);
      if (known === undefined || known.kind !== kind) failures.push(invalid(VALIDATE));
      else after = known.after;
    }
    failures.push(...this.#access(caller));
    const limit = typeof input.limit === "number" ? input.limit : LIMIT.page;
    return {
      failures,
      success: () => {
        const rows: { seq: number }[] = kind === "sources" ? this.sources : this.files;
        const page = rows.filter((r) => r.seq > after).slice(0, limit);
        const more = rows.filter((r) => r.seq > after).length > limit;
        const prefix = kind === "sources" ? "source" : "file";
        // Metadata only (SPEC §6): a source's normalized form is the Note's own business.
        const items = page.map(({ seq, normalized_url: _n, ...rest }: { seq: number; normalized_url?: string }) => ({ id: `${prefix}-${seq}`, ...rest, added_at: TIME }));
        return {
          writes: false,
          check: (value) => {
            const problems = same({ note_id: this.noteId, kind, items, more }, { ...value, items: withoutTimes(value.items), more: value.next_cursor !== null, next_cursor: undefined });
            if (more && typeof value.next_cursor !== "string") problems.push(`next_cursor: expected a string, got ${show(value.next_cursor)}`);
            return problems;
          },
          apply: (value) => {
            const last = page.at(-1);
            if (typeof value.next_cursor === "string" && last !== undefined) this.cursors.push({ cursor: value.next_cursor, kind: String(kind), after: last.seq });
          },
        };
      },
    };
  }

  // ---- the agent's writes --------------------------------------------------

  /** SPEC §3: arguments, access, key, version, target. */
  #keyed(tool: string, caller: Caller, input: Row): Plan {
    const failures: Failure[] = [];
    if (!integer(input.expected_version, 1, Number.MAX_SAFE_INTEGER)) failures.push(invalid(VALIDATE));
    if (!wellFormedKey(input.idempotency_key)) failures.push(invalid(VALIDATE));
    const target = tool === "create_tab" ? this.#createTab(input) : tool === "edit_tab" ? this.#editTab(input) : this.#addSource(input);
    failures.push(...target.failures, ...this.#access(caller));

    const key = input.idempotency_key as string;
    const record = this.keys.get(key);
    let replay: Success | undefined;
    if (record !== undefined && record.tool !== tool) {
      failures.push({ code: "idempotency_key_reused", stage: KEY, fields: { first_used_by: record.tool } });
    } else if (record !== undefined) {
      replay = this.#replay(record, input);
    }
    if (input.expected_version !== this.version) {
      failures.push({ code: "version_conflict", stage: VERSION, fields: { expected_version: input.expected_version, current_version: this.version } });
    }
    return {
      failures,
      replay,
      success: () => {
        const outcome = target.success();
        return {
          writes: outcome.writes,
          check: (value, window) => outcome.check(value, window),
          apply: (value) => {
            const result = outcome.result(value);
            outcome.apply(value);
            if (outcome.writes) this.keys.set(key, { tool, result, args: argumentsOf(input), expected_version: input.expected_version });
          },
        };
      },
    };
  }

  #replay(record: KeyRecord, input: Row): Success {
    // The arguments but the version and the key: a resend after a re-read carries a newer version and does not differ.
    const differ = argumentsOf(input) !== record.args;
    return {
      writes: false,
      check: (value) => {
        const problems = same({ ...record.result, replayed: true }, withoutDiffer(value));
        if (value.arguments_differ !== differ) problems.push(`arguments_differ: expected ${differ}, got ${show(value.arguments_differ)}`);
        return problems;
      },
      apply: () => {},
    };
  }

  #createTab(input: Row): Target {
    const failures: Failure[] = [];
    const type = input.tab_type;
    if (type !== "slides" && type !== "sheet") failures.push(invalid(VALIDATE));
    if (!label(input.label, false)) failures.push(invalid(VALIDATE));
    if (input.slides !== undefined && !slides(input.slides, 0, LIMIT.slidesPerCall)) failures.push(invalid(VALIDATE));
    if (type === "sheet" && Array.isArray(input.slides) && input.slides.length > 0) failures.push(invalid(VALIDATE, true));
    if (this.#addedTabs() >= LIMIT.tabs) failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "tabs_per_note" } });
    const deck = Array.isArray(input.slides) ? input.slides.map(toSlide) : [];
    return {
      failures,
      success: () => {
        const expected = (value: Row): Row => ({
          note_id: this.noteId,
          tab_id: value.tab_id,
          tab_type: type,
          label: typeof input.label === "string" ? input.label.trim() : DEFAULT_LABEL[String(type)],
          position: this.strip.length,
          slide_count: deck.length,
          slide_ids: value.slide_ids,
          version: this.version + 1,
          replayed: false,
        });
        return {
          writes: true,
          result: (value) => expected(value),
          check: (value, window) => [
            ...this.#newTabId(value.tab_id, String(type), window),
            ...this.#newSlideIds(value.slide_ids, deck.length, window),
            ...same(expected(value), withoutDiffer(value, false)),
          ],
          apply: (value) => {
            const id = String(value.tab_id);
            this.#addTab({ id, type: String(type), label: String(expected(value).label), slide_count: deck.length }, this.strip.length);
            if (type === "slides") this.slides.set(id, this.#identify(deck, value.slide_ids));
            this.#bump();
          },
        };
      },
    };
  }

  #editTab(input: Row): Target {
    const failures: Failure[] = [];
    if (!text(input.tab_id, 100, { required: true, nonBlank: true })) failures.push(invalid(VALIDATE));
    let added: Slide[] = [];
    if (input.operation === "slide_add") {
      const slide = { title: input.title, body: input.body, notes: input.notes };
      if (!slideOk(slide) || input.slides !== undefined) failures.push(invalid(VALIDATE));
      else added = [toSlide(slide)];
    } else if (input.operation === "slides_add_outline") {
      if (!slides(input.slides, 1, LIMIT.slidesPerCall) || ["title", "body", "notes"].some((f) => input[f] !== undefined)) failures.push(invalid(VALIDATE));
      else added = (input.slides as unknown[]).map(toSlide);
    } else {
      failures.push(invalid(VALIDATE));
    }
    const tab = this.#tab(input.tab_id);
    if (tab === undefined) failures.push({ code: "tab_not_found", stage: TARGET, fields: { tab_id: input.tab_id } });
    else if (tab.type !== "slides") failures.push({ code: "wrong_tab_type", stage: TARGET });
    else if (tab.slide_count + added.length > LIMIT.slidesPerTab) failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "slides_per_tab" } });
    return {
      failures,
      success: () => {
        const t = tab as Tab;
        const expected = (value: Row): Row => ({
          note_id: this.noteId,
          tab_id: t.id,
          slides_added: added.length,
          slide_ids: value.slide_ids,
          slide_count: t.slide_count + added.length,
          version: this.version + 1,
          replayed: false,
        });
        return {
          writes: true,
          result: (value) => expected(value),
          check: (value, window) => [...this.#newSlideIds(value.slide_ids, added.length, window), ...same(expected(value), withoutDiffer(value, false))],
          apply: (value) => {
            this.slides.set(t.id, [...this.#deck(t.id), ...this.#identify(added, value.slide_ids)]);
            t.slide_count += added.length;
            this.#bump();
          },
        };
      },
    };
  }

  #addSource(input: Row): Target {
    const failures: Failure[] = [];
    if (!text(input.title, LIMIT.sourceTitle, { required: true, nonBlank: true })) failures.push(invalid(VALIDATE));
    if (typeof input.url !== "string") failures.push(invalid(VALIDATE));
    if (!text(input.description, LIMIT.description)) failures.push(invalid(VALIDATE));
    const known = Object.values(URLS).find((u) => u.given === input.url);
    if (typeof input.url === "string" && known === undefined) throw new Error(`the model knows no URL ${show(input.url)}`);
    const parsed = known?.url === null ? null : (known as { url: string; normalized: string } | undefined);
    const existing = parsed === undefined || parsed === null ? undefined : this.sources.find((s) => s.normalized_url === parsed.normalized);
    if (parsed === null) failures.push({ code: "invalid_url", stage: PREPARE });
    else if (existing === undefined && this.meta !== null && this.meta.source_count >= LIMIT.sources) {
      failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "sources_per_note" } });
    }
    return {
      failures,
      success: () => {
        const p = parsed as { url: string; normalized: string };
        if (existing !== undefined) {
          // A page already attached: the existing source, nothing written, no key recorded (SPEC §5).
          const answer = { note_id: this.noteId, source_id: `source-${existing.seq}`, title: existing.title, url: existing.url, normalized_url: existing.normalized_url, already_attached: true, version: this.version, replayed: false };
          return { writes: false, result: () => answer, check: (value) => same(answer, withoutDiffer(value, false)), apply: () => {} };
        }
        const seq = (this.sources.at(-1)?.seq ?? 0) + 1;
        const title = String(input.title).trim();
        const expected = { note_id: this.noteId, source_id: `source-${seq}`, title, url: p.url, normalized_url: p.normalized, already_attached: false, version: this.version + 1, replayed: false };
        return {
          writes: true,
          result: () => expected,
          check: (value) => same(expected, withoutDiffer(value, false)),
          apply: () => {
            this.sources.push({ seq, title, url: p.url, normalized_url: p.normalized, description: typeof input.description === "string" ? input.description : "" });
            (this.meta as Meta).source_count += 1;
            this.#bump();
          },
        };
      },
    };
  }

  // ---- the person's changes ------------------------------------------------

  /** Access, the optional version, the change; one version more unless nothing changed. */
  #change(name: string, caller: Caller, input: Row): Plan {
    const failures: Failure[] = [];
    if (input.expected_version !== undefined && !integer(input.expected_version, 1, Number.MAX_SAFE_INTEGER)) failures.push(invalid(VALIDATE));
    failures.push(...this.#access(caller));
    if (input.expected_version !== undefined && input.expected_version !== this.version) {
      failures.push({ code: "version_conflict", stage: VERSION, fields: { expected_version: input.expected_version, current_version: this.version } });
    }
    const change = this.#personal(name, input);
    failures.push(...change.failures);
    return {
      failures,
      success: () => {
        const plan = change.plan();
        const changes = plan.apply !== undefined;
        const version = this.version + (changes ? 1 : 0);
        return {
          writes: changes,
          check: (value, window) => {
            const problems = same({ note_id: this.noteId, version }, { note_id: value.note_id, version: value.version });
            const tab = isRow(value.tab) ? value.tab : {};
            if (plan.newTab !== undefined) problems.push(...this.#newTabId(tab.id, plan.newTab, window));
            // An answer that changed nothing may leave the tab out; one that names it names it right.
            if (plan.tab !== undefined && (value.tab !== undefined || plan.newTab !== undefined)) problems.push(...same(plan.tab(tab.id), value.tab, "tab"));
            if (plan.file_id !== undefined) problems.push(...same(plan.file_id, value.file_id, "file_id"));
            return problems;
          },
          apply: (value) => {
            if (plan.apply === undefined) return;
            plan.apply(value);
            this.#bump();
          },
        };
      },
    };
  }

  #personal(name: string, input: Row): { failures: Failure[]; plan: () => PersonalPlan } {
    const failures: Failure[] = [];
    const fail = (code: ErrorCode) => failures.push({ code, stage: TARGET });
    const argument = (ok: boolean) => {
      if (!ok) failures.push(invalid(VALIDATE, true));
    };
    /** The tab by exact ID; a missing ID is the arguments' problem, not a tab not found. */
    const found = (): Tab | undefined => {
      const tab = this.#tab(input.tab_id);
      argument(typeof input.tab_id === "string");
      if (typeof input.tab_id === "string" && tab === undefined) fail("tab_not_found");
      return tab;
    };
    /** A tab by exact ID, for a change only Slides and Sheet tabs take. */
    const added = (): Tab | undefined => {
      const tab = found();
      if (tab !== undefined && tab.type !== "slides" && tab.type !== "sheet") fail("wrong_tab_type");
      return tab;
    };
    switch (name) {
      case "set_approval": {
        argument(typeof input.approved === "boolean");
        return {
          failures,
          plan: () => (input.approved === this.meta?.approved ? {} : { apply: () => void ((this.meta as Meta).approved = input.approved as boolean) }),
        };
      }
      case "rename_note": {
        argument(oneLine(input.title, LIMIT.noteTitle));
        const title = String(input.title).trim();
        return { failures, plan: () => (title === this.meta?.title ? {} : { apply: () => void ((this.meta as Meta).title = title) }) };
      }
      case "add_member": {
        argument(text(input.user, LIMIT.user, { required: true, nonBlank: true }));
        const user = input.user as string;
        return { failures, plan: () => (this.members.has(user) ? {} : { apply: () => void this.members.set(user, "editor") }) };
      }
      case "add_tab": {
        const type = input.tab_type;
        argument(type === "slides" || type === "sheet");
        argument(label(input.label, false));
        const end = this.strip.length;
        if (input.position !== undefined) {
          argument(integer(input.position, 0, Number.MAX_SAFE_INTEGER));
          if (integer(input.position, 0, Number.MAX_SAFE_INTEGER) && (input.position as number) > end) failures.push(invalid(AGAINST_NOTE, true));
        }
        if (this.#addedTabs() >= LIMIT.tabs) failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "tabs_per_note" } });
        const position = typeof input.position === "number" ? input.position : end;
        const tabLabel = typeof input.label === "string" ? input.label.trim() : DEFAULT_LABEL[String(type)];
        const made = (id: unknown): Tab => ({ id: String(id), type: String(type), label: String(tabLabel), slide_count: 0 });
        return {
          failures,
          plan: () => ({
            newTab: String(type),
            tab: (id) => summary(made(id), position),
            apply: (value) => {
              const tab = made((value.tab as Row).id);
              this.#addTab(tab, position);
              if (type === "slides") this.slides.set(tab.id, []);
            },
          }),
        };
      }
      case "rename_tab": {
        argument(label(input.label, true));
        const tab = added();
        return {
          failures,
          plan: () => {
            const t = tab as Tab;
            const next = String(input.label).trim();
            if (t.label === next) return {};
            return { tab: () => summary({ ...t, label: next }, this.strip.indexOf(t)), apply: () => void (t.label = next) };
          },
        };
      }
      case "move_tab": {
        argument(integer(input.position, 0, Number.MAX_SAFE_INTEGER));
        const tab = found();
        if (integer(input.position, 0, Number.MAX_SAFE_INTEGER) && (input.position as number) > this.strip.length - 1) failures.push(invalid(AGAINST_NOTE, true));
        return {
          failures,
          plan: () => {
            const t = tab as Tab;
            const to = input.position as number;
            if (this.strip.indexOf(t) === to) return {};
            return {
              tab: () => summary(t, to),
              apply: () => {
                this.strip = this.strip.filter((x) => x !== t);
                this.strip.splice(to, 0, t);
              },
            };
          },
        };
      }
      case "delete_tab": {
        const tab = added();
        return {
          failures,
          plan: () => ({
            apply: () => {
              this.strip = this.strip.filter((x) => x !== tab);
              this.slides.delete((tab as Tab).id);
            },
          }),
        };
      }
      case "set_slides": {
        argument(slides(input.slides, 0, LIMIT.slidesPerTab));
        const tab = found();
        if (tab !== undefined && tab.type !== "slides") fail("wrong_tab_type");
        const deck = Array.isArray(input.slides) ? input.slides.map(toSlide) : [];
        return {
          failures,
          plan: () => {
            const t = tab as Tab;
            return {
              tab: () => summary({ ...t, slide_count: deck.length }, this.strip.indexOf(t)),
              apply: () => {
                // New slides with new IDs, which the answer does not name: learnSlideIds takes them from the tables.
                this.slides.set(t.id, deck);
                t.slide_count = deck.length;
                (this.meta as Meta).next_slide_n += deck.length;
              },
            };
          },
        };
      }
      case "set_markdown": {
        argument(text(input.text, LIMIT.markdown, { required: true }));
        return { failures, plan: () => (input.text === this.markdown ? {} : { apply: () => void (this.markdown = input.text as string) }) };
      }
      case "add_file": {
        argument(text(input.name, LIMIT.fileName, { required: true, nonBlank: true }));
        argument(text(input.media_type, LIMIT.mediaType, { required: true, nonBlank: true }) && /^[\w.+-]+\/[\w.+-]+$/.test(String(input.media_type)));
        argument(integer(input.size_bytes, 0, LIMIT.fileSize));
        if (this.meta !== null && this.meta.file_count >= LIMIT.files) failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "files_per_note" } });
        const seq = (this.files.at(-1)?.seq ?? 0) + 1;
        return {
          failures,
          plan: () => ({
            file_id: `file-${seq}`,
            apply: () => {
              this.files.push({ seq, name: String(input.name).trim(), media_type: String(input.media_type), size_bytes: input.size_bytes as number });
              (this.meta as Meta).file_count += 1;
            },
          }),
        };
      }
      default:
        throw new Error(`the model knows no operation ${name}`);
    }
  }

  // ---- the model's own bookkeeping -------------------------------------------

  /** Checks a new tab's ID: `{type}-{n}-{base36 ms}`, n from the counter, never an ID seen before. */
  #newTabId(id: unknown, type: string, [from, to]: TimeWindow): string[] {
    const match = typeof id === "string" ? /^(slides|sheet)-(\d+)-([0-9a-z]+)$/.exec(id) : null;
    if (match === null) return [`tab_id: ${show(id)} is not {type}-{n}-{base36 ms}`];
    const problems: string[] = [];
    if (match[1] !== type) problems.push(`tab_id: ${id} is not a ${type} ID`);
    const n = this.meta?.next_tab_n;
    if (Number(match[2]) !== n) problems.push(`tab_id: ${id} has n = ${match[2]}, the counter is at ${n}`);
    const ms = parseInt(match[3] as string, 36);
    if (ms < from || ms > to) problems.push(`tab_id: ${id} has time ${ms}, outside the call's ${from}..${to}`);
    if (this.seenTabIds.includes(id as string)) problems.push(`tab_id: ${id} was handed out before`);
    return problems;
  }

  /** Checks new slides' IDs: `slide-{n}-{base36 ms}`, n from the counter in order, never an ID seen before. */
  #newSlideIds(ids: unknown, count: number, [from, to]: TimeWindow): string[] {
    if (!Array.isArray(ids) || ids.length !== count) return [`slide_ids: ${show(ids)} is not a list of ${count} IDs`];
    const problems: string[] = [];
    const next = (this.meta as Meta).next_slide_n;
    ids.forEach((id: unknown, i) => {
      const match = typeof id === "string" ? /^slide-(\d+)-([0-9a-z]+)$/.exec(id) : null;
      if (match === null) return void problems.push(`slide_ids[${i}]: ${show(id)} is not slide-{n}-{base36 ms}`);
      if (Number(match[1]) !== next + i) problems.push(`slide_ids[${i}]: ${show(id)} has n = ${match[1]}, the counter says ${next + i}`);
      const ms = parseInt(match[2] as string, 36);
      if (ms < from || ms > to) problems.push(`slide_ids[${i}]: ${show(id)} has time ${ms}, outside the call's ${from}..${to}`);
      if (this.seenSlideIds.has(id as string)) problems.push(`slide_ids[${i}]: ${show(id)} was handed out before`);
    });
    return problems;
  }

  /** New slides with the IDs the answer gave them (checked by #newSlideIds), the counter moved past them. */
  #identify(deck: readonly Slide[], ids: unknown): Slide[] {
    const given = ids as string[];
    given.forEach((id) => this.seenSlideIds.add(id));
    (this.meta as Meta).next_slide_n += deck.length;
    return deck.map((s, i) => ({ ...s, id: given[i] as string }));
  }

  /**
   * The IDs of a deck the person replaced, learned from the stored rows (the
   * answer names none): each must be well formed and never handed out before.
   * Once learned, an ID is the model's to predict, like any other column.
   */
  learnSlideIds(rows: readonly Row[]): string[] {
    const problems: string[] = [];
    for (const [tabId, deck] of this.slides) {
      deck.forEach((slide, idx) => {
        if (slide.id !== "") return;
        const id = rows.find((r) => r.tab_id === tabId && r.idx === idx)?.id;
        if (typeof id !== "string" || !/^slide-\d+-[0-9a-z]+$/.test(id)) return void problems.push(`slide ${tabId}#${idx}: ID ${show(id)} is not slide-{n}-{base36 ms}`);
        if (this.seenSlideIds.has(id)) problems.push(`slide ${tabId}#${idx}: ID ${id} was handed out before`);
        this.seenSlideIds.add(id);
        slide.id = id;
      });
    }
    return problems;
  }

  #addTab(tab: Tab, position: number): void {
    const meta = this.meta as Meta;
    this.strip.splice(position, 0, tab);
    this.seenTabIds.push(tab.id);
    meta.next_tab_n += 1;
  }

  #bump(): void {
    (this.meta as Meta).version += 1;
  }

  #addedTabs(): number {
    return this.strip.filter((t) => t.type === "slides" || t.type === "sheet").length;
  }

  #tab(id: unknown): Tab | undefined {
    return this.strip.find((t) => t.id === id);
  }

  #deck(id: string): Slide[] {
    return this.slides.get(id) ?? [];
  }

  #summary(tab: Tab): Row {
    return summary(tab, this.strip.indexOf(tab));
  }

  #summaries(): Row[] {
    return this.strip.map((t) => this.#summary(t));
  }

  #wholeNote(): Row {
    const meta = this.meta as Meta;
    return {
      note_id: this.noteId,
      title: meta.title,
      approved: meta.approved,
      version: meta.version,
      members: [...this.members.keys()].sort(),
      markdown: this.markdown,
      tabs: this.strip.map((t) => (t.type === "slides" ? { ...this.#summary(t), slides: this.#deck(t.id).map((s, index) => ({ index, ...s })) } : this.#summary(t))),
      source_count: meta.source_count,
      file_count: meta.file_count,
    };
  }
}

interface Target {
  failures: Failure[];
  /** A success of the target step; `result` is what the key records (a write's first answer). */
  success: () => Success & { result: (value: Row) => Row };
}

/** What a person's change does: nothing (no apply), or a change and what its answer names. */
interface PersonalPlan {
  /** The tab as the change leaves it (a new tab's ID is the answer's). */
  tab?: (id: unknown) => Row;
  file_id?: string;
  /** The type of the tab the change adds. */
  newTab?: string;
  apply?: (value: Row) => void;
}

const KEYED = new Set(["create_tab", "edit_tab", "add_source"]);
/** Timestamps are the clock's: the projection replaces each with this mark after checking it is one. */
export const TIME = "<time>";
/** Stands for a key record's fingerprint of its arguments: the model checks what it decides, `arguments_differ`. */
export const FINGERPRINT = "<fingerprint>";

/**
 * The right answers of a plan. Arguments are checked before everything else,
 * or (for checks marked late) among the target checks; both are right.
 */
function settle(plan: Plan): Expectation {
  const codes = new Set<ErrorCode>();
  const fields: Partial<Record<ErrorCode, Row>> = {};
  let success: Success | null = null;
  for (const late of [false, true]) {
    const stageOf = (f: Failure) => (late && f.late === true ? TARGET : f.stage);
    const first = Math.min(...plan.failures.map(stageOf));
    if (plan.replay !== undefined && !(first <= KEY)) success = plan.replay;
    else if (plan.failures.length > 0) {
      for (const f of plan.failures.filter((x) => stageOf(x) === first)) {
        codes.add(f.code);
        if (f.fields !== undefined) fields[f.code] = f.fields;
      }
    } else success = (plan.success as () => Success)();
  }
  return { codes: [...codes], fields, success };
}

function invalid(stage: number, late = false): Failure {
  return { code: "invalid_arguments", stage, late };
}

function answers(expected: Row): Success {
  return { writes: false, check: (value) => same(expected, { ...value, members: Array.isArray(value.members) ? [...value.members].sort() : value.members }), apply: () => {} };
}

function summary(tab: Tab, position: number): Row {
  const row: Row = { id: tab.id, type: tab.type, label: tab.label, position };
  if (tab.type === "slides") row.slide_count = tab.slide_count;
  return row;
}

// ---- argument rules (SPEC §2, §4 and the README's limits) ---------------------

/** C0 controls but tab and line breaks, DEL and C1 controls. */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;

function text(value: unknown, max: number, o: { required?: boolean; nonBlank?: boolean } = {}): boolean {
  if (value === undefined) return o.required !== true;
  if (typeof value !== "string" || value.length > max || CONTROL.test(value)) return false;
  return !(o.nonBlank === true && value.trim() === "");
}

function label(value: unknown, required: boolean): boolean {
  return oneLine(value, LIMIT.label, required);
}

/** A Note title or a tab label: non-blank text on one line (Unicode's line and paragraph separators break lines too). */
function oneLine(value: unknown, max: number, required = true): boolean {
  return text(value, max, { required, nonBlank: true }) && !(typeof value === "string" && /[\r\n\u2028\u2029]/.test(value));
}

function integer(value: unknown, min: number, max: number): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max;
}

function wellFormedKey(value: unknown): boolean {
  return typeof value === "string" && value.length >= 1 && value.length <= LIMIT.key && /^[\x20-\x7e]+$/.test(value);
}

function slideOk(slide: unknown): boolean {
  if (typeof slide !== "object" || slide === null) return false;
  const s = slide as Row;
  return text(s.title, LIMIT.slideTitle, { required: true, nonBlank: true }) && text(s.body, LIMIT.slideText) && text(s.notes, LIMIT.slideText);
}

function slides(value: unknown, min: number, max: number): boolean {
  return Array.isArray(value) && value.length >= min && value.length <= max && value.every(slideOk);
}

function toSlide(slide: unknown): Slide {
  const s = slide as Row;
  return { id: "", title: String(s.title).trim(), body: typeof s.body === "string" ? s.body : "", notes: typeof s.notes === "string" ? s.notes : "" };
}

/** A keyed call's own arguments: what a resend with other arguments changes. */
function argumentsOf(input: Row): string {
  const { expected_version: _v, idempotency_key: _k, ...rest } = input;
  return canonical(rest);
}

// ---- comparing -----------------------------------------------------------------

/** JSON with object keys sorted and undefined fields left out: equal values, equal text. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Row).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

export function show(value: unknown): string {
  const text = canonical(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

/** The differences between what the model expects and what came back, by field. */
function same(expected: unknown, actual: unknown, path = ""): string[] {
  if (canonical(expected) === canonical(actual)) return [];
  if (isRow(expected) && isRow(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].filter((k) => expected[k] !== undefined || actual[k] !== undefined);
    return keys.flatMap((k) => same(expected[k], actual[k], path === "" ? k : `${path}.${k}`));
  }
  return [`${path === "" ? "answer" : path}: expected ${show(expected)}, got ${show(actual)}`];
}

function isRow(value: unknown): value is Row {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A keyed answer without `arguments_differ`, which a replay's check compares
 * on its own: a first answer (`replay` false) must say false, and anything
 * else (a true, or nothing) stays in, so that it shows as wrong.
 */
function withoutDiffer(value: Row, replay = true): Row {
  const { arguments_differ, ...rest } = value;
  if (replay || arguments_differ === false) return rest;
  return { ...rest, arguments_differ: arguments_differ ?? "<missing>" };
}

function withoutTimes(items: unknown): unknown {
  return Array.isArray(items) ? items.map((item: unknown) => (isRow(item) && typeof item.added_at === "string" ? { ...item, added_at: TIME } : item)) : items;
}
