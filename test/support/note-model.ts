/**
 * A reference model of one Note for the generated-history test: what each
 * operation must answer and which rows it must leave. Written from docs/spec.md and
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
  | "slide_not_found"
  | "row_not_found"
  | "idempotency_key_reused"
  | "invalid_url"
  | "limit_exceeded"
  | "revert_conflict"
  | "change_not_found"
  | "not_revertible";

export interface Caller {
  user: string;
  channel: "connector" | "app";
  /** An agent's OAuth client: whom the change log names. */
  client?: { id: string; name: string | null };
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
  itemId: 100,
  columns: 50,
  columnName: 100,
  cell: 2_000,
  rowsPerCall: 500,
  rowsPerSheet: 10_000,
  rowsPage: 500,
  rowsPageDefault: 100,
  pageChars: 250_000,
  changesPage: 200,
  changesPageDefault: 50,
  /** The change log keeps the newest entries; each commit drops the one that falls out. */
  changesKept: 1000,
  /** Slide or row IDs an entry lists; ids_omitted counts the rest. */
  idsPerChange: 20,
  /** Entries a version_conflict carries. */
  conflictChanges: 20,
} as const;

/** The client_id the log gives an agent whose caller names no client. */
export const UNKNOWN_CLIENT = "(unknown)";

/** The distance between two appended items' order keys (a deck's slides, a Sheet's rows). */
export const KEY_GAP = 1024;

export const FIXED = ["markdown", "files", "sources"] as const;
const FIXED_LABEL: Record<string, string> = { markdown: "Markdown", files: "Files", sources: "Sources" };
const DEFAULT_LABEL: Record<string, string> = { slides: "Slides", sheet: "Sheet" };
const AGENT_OPERATIONS = new Set(["list_tabs", "read_tab", "list_attachments", "list_changes", "create_tab", "edit_tab", "add_source", "revert_change"]);

/** Citations the histories use, each with the stored and the normalized form docs/spec.md §5 gives it (null: refused). */
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
 * The order of a call's checks (docs/spec.md §3). A failure in an earlier stage hides
 * every later one; within a stage the order is not a promise, so any of its
 * failures is a right answer.
 */
const DOOR = 0;
const VALIDATE = 1;
/** An argument's own check with its own code (a URL that is no page: invalid_url), after the fields' shapes. */
const PREPARE = 1.5;
/** A Sheet's size limit passed by well-formed arguments (limit_exceeded): told only when no argument is malformed. */
const SIZES = 1.25;
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
  /** Fields each of those errors must carry: any one of the sets (two limits passed at once, each is right). */
  fields: Partial<Record<ErrorCode, Row[]>>;
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
  row_count: number;
  /** A Sheet's column names in order. */
  columns: string[];
}
/** A slide or a Sheet row: an ID the answer gave it, and its order key (only the keys' order means anything). */
interface Item {
  id: string;
  key: number;
}
interface Slide extends Item {
  title: string;
  body: string;
  notes: string;
}
type Cells = Record<string, string | number>;
interface SheetRow extends Item {
  /** In the Sheet's column order, as stored. */
  cells: Cells;
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
  next_row_n: number;
  source_count: number;
  file_count: number;
}

export class NoteModel {
  meta: Meta | null = null;
  readonly members = new Map<string, "owner" | "editor">();
  /** The strip, in order: a tab's position is its index. */
  strip: Tab[] = [];
  /** Each deck's slides, and each Sheet's rows, in key order. */
  readonly slides = new Map<string, Slide[]>();
  readonly rows = new Map<string, SheetRow[]>();
  markdown = "";
  readonly keys = new Map<string, KeyRecord>();
  readonly sources: { seq: number; title: string; url: string; normalized_url: string; description: string }[] = [];
  readonly files: { seq: number; name: string; media_type: string; size_bytes: number }[] = [];
  /** Every tab ID the Note handed out, deleted ones included, in order. */
  readonly seenTabIds: string[] = [];
  /** Every slide ID the Note handed out, deleted and replaced slides included. */
  readonly seenSlideIds = new Set<string>();
  /** Every row ID the Note handed out, deleted rows included. */
  readonly seenRowIds = new Set<string>();
  /** How many moves found no free key and gave a whole tab fresh keys, by kind. */
  readonly rekeys = { slides: 0, rows: 0 };
  /** Every well-formed key a keyed call carried, committed or not, in order. */
  readonly usedKeys: string[] = [];
  /** Every keyed call sent, for resending. */
  readonly keyedCalls: Call[] = [];
  /**
   * Every cursor the Note handed out, with the list and the position it names:
   * an attachment's seq; a deck's or a Sheet's order key, and the items before it.
   */
  readonly cursors: { cursor: string; kind: string; after: number; count?: number; lastId?: string }[] = [];
  /**
   * The change log by version: one entry per committed change, its fields in
   * the order the Note writes them, `at` as TIME until the Note's own time is
   * learned (`learnTimes`) from its table after the step that committed it.
   */
  readonly log = new Map<number, Row>();
  #keyCounter = 0;
  /** The highest source and file numbers given: never given again, even once a revert took them away. */
  readonly #seqs = { sources: 0, files: 0 };
  /**
   * Every content change committed, by version (docs/spec.md §10), for taking
   * one back: what it did to each thing in the Note, what it touched, where
   * what it moved or took away stood before it. Kept for the whole history
   * (the log keeps the newest 1,000; a change before them is still part of
   * the content a leave-out replay builds).
   */
  readonly #done = new Map<number, Done>();
  /** Each thing in the Note (see `entitiesOf`) as create_note left it: where a leave-out replay starts. */
  #origin: Map<string, unknown> = new Map();
  /** Whether each remembered change is in effect, until the next one is remembered. */
  #inEffect: Map<number, boolean> | null = null;
  /** The versions that touched each item key (`k:`), worked in each tab (`t:`), made each tab what it is (`w:`), oldest first. */
  readonly #touching = new Map<string, number[]>();

  constructor(readonly noteId: string) {}

  get version(): number {
    return this.meta?.version ?? 1;
  }

  /** The content a revert puts back: everything a change may change but the counters, the members, the keys and the log. */
  #content(): Content {
    const meta = this.meta as Meta;
    return {
      title: meta.title,
      source_count: meta.source_count,
      file_count: meta.file_count,
      strip: this.strip.map((t) => ({ ...t, columns: [...t.columns] })),
      // The model never changes a slide, a row, a source or a file in place (a change puts a new object): the lists are copies, the items shared.
      slides: new Map([...this.slides].map(([id, deck]) => [id, [...deck]])),
      rows: new Map([...this.rows].map(([id, rows]) => [id, [...rows]])),
      markdown: this.markdown,
      sources: [...this.sources],
      files: [...this.files],
    };
  }

  #restore(content: Content): void {
    const meta = this.meta as Meta;
    meta.title = content.title;
    meta.source_count = content.source_count;
    meta.file_count = content.file_count;
    this.strip = content.strip.map((t) => ({ ...t, columns: [...t.columns] }));
    this.slides.clear();
    for (const [id, deck] of content.slides) this.slides.set(id, [...deck]);
    this.rows.clear();
    for (const [id, rows] of content.rows) this.rows.set(id, [...rows]);
    this.markdown = content.markdown;
    this.sources.splice(0, this.sources.length, ...content.sources);
    this.files.splice(0, this.files.length, ...content.files);
  }

  /**
   * Remembers the content change that just committed (the Note's version),
   * from the content before it and after it and what its log entry names.
   * A change that is not content is not remembered: it is never taken back.
   */
  #remember(operation: string, before: Content | null, touched: Row): void {
    if (before === null || NOT_CONTENT.has(operation)) return;
    const tab = touched.tab_id as string | undefined;
    const of = (fields: Row): Row => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
    let own: Row;
    let back: Row;
    if (operation === "create_tab" || operation === "add_tab" || operation === "delete_tab" || operation === "columns_add") {
      own = back = of({ tab_id: tab });
    } else if (operation === "set_slides") {
      const old = (before.slides.get(tab as string) ?? []).map((s) => s.id);
      const fresh = (touched.slide_ids as string[] | undefined) ?? [];
      own = of({ tab_id: tab, slide_ids: [...new Set([...old, ...fresh])] });
      back = of({ tab_id: tab, slide_ids: [...new Set([...fresh, ...old])] });
    } else if (operation === "rename_note") {
      own = back = {};
    } else {
      own = back = of({ tab_id: tab, source_id: touched.source_id, file_id: touched.file_id, slide_ids: touched.slide_ids, row_ids: touched.row_ids });
    }
    const after = this.#content();
    const movedId = operation === "slide_move" || operation === "row_move" ? (((touched.slide_ids ?? touched.row_ids) as string[])[0] as string) : undefined;
    const done = this.#record(this.version, operation, before, after, { own, back, tab, movedId });
    // What it touched (docs/spec.md §10 "revert_conflict"): the items it changed, and the tabs it worked in or made what they are.
    const items = [...done.diff.keys()].filter((k) => k.startsWith("slide:") || k.startsWith("row:")).map((k) => k.slice(k.indexOf(":") + 1));
    const touch: Touch = { keys: new Set(), tabs: new Set(), whole: new Set() };
    const tabWhole = () => {
      touch.keys.add(tab as string);
      touch.tabs.add(tab as string);
      touch.whole.add(tab as string);
    };
    switch (operation) {
      case "create_tab":
      case "add_tab":
      case "delete_tab":
        tabWhole();
        break;
      case "rename_tab":
        touch.keys.add(`label:${tab}`);
        touch.tabs.add(tab as string);
        break;
      case "move_tab":
        touch.keys.add(`place:${tab}`);
        touch.tabs.add(tab as string);
        break;
      case "columns_add":
        touch.keys.add(`columns:${tab}`);
        touch.tabs.add(tab as string);
        touch.whole.add(tab as string);
        break;
      case "set_slides":
        for (const id of items) touch.keys.add(id);
        touch.tabs.add(tab as string);
        touch.whole.add(tab as string);
        break;
      case "slide_move":
      case "row_move": {
        // The item, the one it followed and the one it follows now: where it goes back to must still be there.
        const moved = done.moved as NonNullable<Done["moved"]>;
        const list = (moved.rows ? after.rows : after.slides).get(moved.tab) ?? [];
        const at = list.findIndex((it) => it.id === moved.id);
        for (const id of [moved.id, moved.pred, at > 0 ? (list[at - 1] as Item).id : null]) if (id !== null) touch.keys.add(id);
        touch.tabs.add(moved.tab);
        break;
      }
      case "set_markdown":
        touch.keys.add("markdown");
        break;
      case "rename_note":
        touch.keys.add("title");
        break;
      case "add_source": {
        const seq = Number(String(touched.source_id).slice("source-".length));
        touch.keys.add(`source-${seq}`).add(`url:${this.sources.find((s) => s.seq === seq)?.normalized_url}`);
        break;
      }
      case "add_file":
        touch.keys.add(String(touched.file_id));
        break;
      default:
        // An edit of slides or rows: the items it added, changed or deleted, in its tab.
        for (const id of items) touch.keys.add(id);
        touch.tabs.add(tab as string);
    }
    done.touch = touch;
    this.#keep(done);
  }

  /**
   * The record of a change from the content before and after it: what it did to each thing, which
   * slides and rows it took away (and where each stood), the tabs it added, deleted or moved, the
   * item it moved. `reverting`: the change a revert takes back, whose tabs and move are its own.
   */
  #record(version: number, operation: string, before: Content, after: Content, o: { own: Row; back: Row; tab?: string; movedId?: string; reverting?: Done }): Done {
    const { reverting } = o;
    const gone: Gone[] = [];
    for (const rows of [false, true]) {
      const then = rows ? before.rows : before.slides;
      const now = rows ? after.rows : after.slides;
      for (const [tab, list] of then) {
        const kept = now.get(tab);
        if (kept !== undefined && kept.length === list.length && kept.every((it, i) => it === list[i])) continue;
        const left = new Set((kept ?? []).map((it) => it.id));
        const ids = list.filter((it) => !left.has(it.id)).map((it) => it.id);
        if (ids.length === 0) continue;
        const withTab = !after.strip.some((t) => t.id === tab);
        // Alone, an item notes the one it followed (a deletion of one, a revert that takes one away), except a replaced deck's.
        const single = !withTab && (reverting === undefined ? operation === "slide_delete" || operation === "row_delete" : ids.length === 1);
        const keys = new Map<string, number>();
        const pred = new Map<string, string | null>();
        list.forEach((it, i) => {
          keys.set(it.id, it.key);
          pred.set(it.id, i === 0 ? null : (list[i - 1] as Item).id);
        });
        gone.push({ tab, rows, ids, withTab, single, keys, pred });
      }
    }
    const stripTabs = reverting !== undefined ? reverting.stripTabs : ["create_tab", "add_tab", "delete_tab", "move_tab"].includes(operation) ? [o.tab as string] : [];
    const placeBack = new Map<string, number>();
    for (const id of stripTabs) {
      const at = before.strip.findIndex((t) => t.id === id);
      if (at >= 0) placeBack.set(id, at);
    }
    let moved: Done["moved"];
    const movedOf = reverting?.moved ?? (o.movedId === undefined ? undefined : { tab: o.tab as string, id: o.movedId, rows: operation === "row_move" });
    if (movedOf !== undefined) {
      const list = (movedOf.rows ? before.rows : before.slides).get(movedOf.tab) ?? [];
      const at = list.findIndex((it) => it.id === movedOf.id);
      moved = { tab: movedOf.tab, id: movedOf.id, rows: movedOf.rows, pred: at > 0 ? (list[at - 1] as Item).id : null, key: (list[at] as Item).key };
    }
    const tookTab = stripTabs.some((id) => before.strip.some((t) => t.id === id) && !after.strip.some((t) => t.id === id));
    // Where what it took away waits for a revert: its own trash; a revert's, the trash it brought them back from while that
    // change is in the log (the first deletion looks there), else its own (src/note/undo.ts).
    const from = reverting?.addedFrom;
    const goneTrash = gone.length === 0 && !tookTab ? undefined : from !== undefined && from > version - LIMIT.changesKept ? from : version;
    const diff = diffOf(before, after, reverting === undefined ? o.tab : (reverting.back.tab_id as string | undefined));
    return {
      version,
      operation,
      reverts: reverting?.version,
      touch: { keys: new Set(), tabs: new Set(), whole: new Set() },
      diff,
      own: o.own,
      back: o.back,
      stripTabs,
      placeBack,
      gone,
      moved,
      goneTrash,
      addedFrom: reverting?.goneTrash,
    };
  }

  #keep(done: Done): void {
    this.#done.set(done.version, done);
    this.#inEffect = null;
    const index = (key: string) => {
      const list = this.#touching.get(key);
      if (list === undefined) this.#touching.set(key, [done.version]);
      else list.push(done.version);
    };
    for (const key of done.touch.keys) index(`k:${key}`);
    for (const tab of done.touch.tabs) index(`t:${tab}`);
    for (const tab of done.touch.whole) index(`w:${tab}`);
  }

  /** The changes after `done` that touched what it touched (see `overlaps`), oldest first; `stop`: only whether one of them is such. */
  #laterTouching(done: Done, stop?: (d: Done) => boolean): Done[] {
    const versions = new Set<number>();
    const lists = [
      ...[...done.touch.keys].map((key) => `k:${key}`),
      ...[...done.touch.tabs].map((tab) => `w:${tab}`),
      ...[...done.touch.whole].map((tab) => `t:${tab}`),
    ].map((key) => this.#touching.get(key) ?? []);
    for (const list of lists) {
      // Versions are kept in order: from the first after `done`.
      let lo = 0;
      for (let hi = list.length; lo < hi; ) {
        const mid = (lo + hi) >> 1;
        if ((list[mid] as number) > done.version) hi = mid;
        else lo = mid + 1;
      }
      for (let i = lo; i < list.length; i++) {
        const v = list[i] as number;
        if (versions.has(v)) continue;
        versions.add(v);
        if (stop !== undefined && stop(this.#done.get(v) as Done)) return [this.#done.get(v) as Done];
      }
    }
    if (stop !== undefined) return [];
    return [...versions]
      .sort((a, b) => a - b)
      .map((v) => this.#done.get(v) as Done)
      .filter((d) => overlaps(done.touch, d.touch));
  }

  /** Whether change `v` is in effect: no revert of it is (a revert of that revert puts it back). */
  #active(v: number): boolean {
    this.#inEffect ??= this.#effect();
    return this.#inEffect.get(v) ?? true;
  }

  /** Whether each remembered change is in effect; `extra`: with a revert about to commit. */
  #effect(extra?: { version: number; reverts: number }): Map<number, boolean> {
    const reverters = new Map<number, number[]>();
    const all = [...this.#done.values()].map((d) => ({ version: d.version, reverts: d.reverts }));
    if (extra !== undefined) all.push(extra);
    for (const d of all) if (d.reverts !== undefined) reverters.set(d.reverts, [...(reverters.get(d.reverts) ?? []), d.version]);
    // Newest first: a revert is later than the change it takes back.
    const active = new Map<number, boolean>();
    for (const d of all.sort((a, b) => b.version - a.version)) active.set(d.version, !(reverters.get(d.version) ?? []).some((r) => active.get(r) === true));
    return active;
  }

  /**
   * Why change `target` cannot be taken back now, or null (docs/spec.md §10), stated
   * without the touch index: not in the log; not content; what it took away gone with
   * the log entry of the change whose trash kept it; or taken back already, or a later
   * change still in effect touched what it touched. A later change that was taken back
   * does not count, nor does a revert of a change later than the target (the two
   * cancel out; a revert of the revert puts that later change back in effect).
   */
  /**
   * Change `version` taken back, as the Note would find it: null (and why, in `failures`) when it may not be, else
   * the change and the content a revert leaves.
   */
  #taking(version: unknown, failures: Failure[]): { done: Done; content: Content } | null {
    if (!integer(version, 1, Number.MAX_SAFE_INTEGER) || this.meta === null) return null;
    const refusal = this.#refusal(version as number);
    if (refusal !== null) {
      failures.push(refusal);
      return null;
    }
    const done = this.#done.get(version as number) as Done;
    const content = this.#afterRevert(done);
    // The limits hold as for any change: what comes back must fit (docs/spec.md §10).
    const limit = revertLimit(this.#content(), content);
    if (limit !== null) failures.push({ code: "limit_exceeded", stage: TARGET + 0.2, fields: { limit } });
    return { done, content };
  }

  /** Takes `done` back, leaving `content`: a new change, logged with what it reverts. */
  #revert(caller: Caller, done: Done, content: Content): void {
    const before = this.#content();
    this.#restore(content);
    this.#bump();
    this.#log(caller, "revert_change", done.back, done.version);
    // Its own revert (a redo) names what the change did in its order.
    const record = this.#record(this.version, "revert_change", before, content, { own: done.back, back: done.own, reverting: done });
    record.touch = revertTouch(done, record);
    this.#keep(record);
  }

  /** revert_note_change's target: the change `input.version`, taken back as the person's undo takes it. */
  #revertTarget(input: Row): Target {
    const failures: Failure[] = [];
    if (!integer(input.version, 1, Number.MAX_SAFE_INTEGER)) failures.push(invalid(VALIDATE));
    const taken = this.#taking(input.version, failures);
    return {
      failures,
      success: () => {
        const { done, content } = taken as NonNullable<typeof taken>;
        const result = { note_id: this.noteId, reverted_version: done.version, version: this.version + 1, replayed: false, ...done.back };
        return {
          writes: true,
          result: () => result,
          touched: () => done.back,
          check: (value) => same(result, withoutDiffer(value, false)),
          apply: () => {},
          revert: (caller: Caller) => this.#revert(caller, done, content),
        };
      },
    };
  }

  #refusal(target: number, listing = true): Failure | null {
    const entry = this.log.get(target);
    if (entry === undefined) return { code: "change_not_found", stage: TARGET, fields: { version: target, oldest_version: this.oldestChange, current_version: this.version } };
    if (NOT_CONTENT.has(String(entry.operation))) return { code: "not_revertible", stage: TARGET, fields: { version: target, operation: entry.operation } };
    const done = this.#done.get(target);
    if (done === undefined) throw new Error(`the model has no record of content change ${target}`);
    if (done.goneTrash !== undefined && done.goneTrash !== target && done.goneTrash < (this.oldestChange ?? 0)) {
      return { code: "not_revertible", stage: TARGET, fields: { version: target, operation: entry.operation } };
    }
    const counts = (d: Done) => this.#active(d.version) && !(d.reverts !== undefined && d.reverts > target);
    if (!listing) return this.#active(target) && this.#laterTouching(done, counts).length === 0 ? null : { code: "revert_conflict", stage: TARGET + 0.1 };
    const later = this.#laterTouching(done);
    if (this.#active(target) && !later.some(counts)) return null;
    // The answer lists the later changes that touched it, but each later change taken back together with its revert.
    const listed = new Set(later.map((d) => d.version));
    const cancelled = new Set<number>();
    for (const d of [...later].reverse()) {
      if (cancelled.has(d.version) || d.reverts === undefined) continue;
      if (d.reverts > target && listed.has(d.reverts)) {
        cancelled.add(d.version);
        cancelled.add(d.reverts);
      }
    }
    const left = later.filter((d) => !cancelled.has(d.version));
    const shown = left.length > 0 ? left : later;
    const changes = shown.slice(0, LIMIT.conflictChanges).map((d) => structuredClone(this.log.get(d.version) as Row));
    return { code: "revert_conflict", stage: TARGET + 0.1, fields: { version: target, changes, changes_complete: changes.length === shown.length } };
  }

  /** How many slides and rows a revert of change `v` brings back (0: none, or no such change). */
  revertSize(v: number): number {
    return (this.#done.get(v)?.gone ?? []).reduce((n, g) => n + g.ids.length, 0);
  }

  /** Whether a revert of the log's entry `v` would pass its target checks now: what list_note_changes says as `revertible`. */
  revertible(v: number): boolean {
    return this.#refusal(v, false) === null;
  }

  /**
   * The content after taking change `c` back, as the change committing as the next version:
   *
   * - every thing in the Note (the title, the Markdown, each tab's type, label and columns, each
   *   slide's and row's tab and fields, each source and file) is what it would be had the history
   *   run without `c`: a replay from the Note as create_note left it of what each change still in
   *   effect did to each thing, `c` left out (a revert of a revert puts its change back in);
   * - where things stand is no replay: positions are absolute and keys are the Note's own. The
   *   rule of docs/spec.md §10 instead: a tab `c` moved or deleted goes back to the position it
   *   had (at most the last); a slide or row `c` moved goes back right after the item it followed,
   *   at its old key when that is free there; one `c` deleted alone comes back right after the item
   *   it followed when that is still in the tab (at its old key when that still fits), else, as
   *   do several, at its old key, or right after the item before that key when an item holds it;
   *   a tab that comes back brings its items at their keys. Everything else keeps its place and key.
   */
  #afterRevert(c: Done): Content {
    const now = this.#content();
    const active = this.#effect({ version: this.version + 1, reverts: c.version });
    const things = new Map(this.#origin);
    for (const d of [...this.#done.values()].sort((a, b) => a.version - b.version)) {
      if (d.reverts !== undefined || active.get(d.version) === false) continue;
      for (const [key, [, after]] of d.diff) {
        if (after === undefined) things.delete(key);
        else things.set(key, after);
      }
    }
    const ids = now.strip.map((t) => t.id).filter((id) => things.has(`tab:${id}`));
    for (const id of c.stripTabs) {
      if (!things.has(`tab:${id}`)) continue;
      const at = c.placeBack.get(id);
      if (at === undefined) throw new Error(`the model has tab ${id} back without a place`);
      if (ids.includes(id)) ids.splice(ids.indexOf(id), 1);
      ids.splice(Math.min(at, ids.length), 0, id);
    }
    const strip: Tab[] = ids.map((id) => {
      const t = things.get(`tab:${id}`) as { type: string; label: string; columns: string[] };
      return { id, type: t.type, label: t.label, columns: [...t.columns], slide_count: 0, row_count: 0 };
    });
    const slides = new Map<string, Slide[]>();
    const rows = new Map<string, SheetRow[]>();
    for (const tab of strip) {
      if (tab.type !== "slides" && tab.type !== "sheet") continue;
      const isRows = tab.type === "sheet";
      const prefix = isRows ? "row:" : "slide:";
      const fields = (id: string): Row => {
        const { tab: _tab, ...rest } = things.get(`${prefix}${id}`) as Row;
        return rest;
      };
      const mine = (id: string) => (things.get(`${prefix}${id}`) as Row | undefined)?.tab === tab.id;
      const back = now.strip.some((t) => t.id === tab.id);
      let list: Item[] = back ? ((isRows ? now.rows : now.slides).get(tab.id) ?? []).filter((it) => mine(it.id)).map((it) => ({ id: it.id, key: it.key })) : [];
      for (const g of c.gone.filter((x) => x.tab === tab.id && x.rows === isRows)) {
        if (g.withTab) {
          if (!back) list = g.ids.map((id) => ({ id, key: g.keys.get(id) as number }));
          continue;
        }
        for (const id of [...g.ids].sort((a, b) => (g.keys.get(a) as number) - (g.keys.get(b) as number))) {
          if (!mine(id)) continue;
          const own = g.keys.get(id) as number;
          const pred = g.pred.get(id) as string | null;
          list = g.single && (pred === null || list.some((it) => it.id === pred)) ? placeAfter(list, id, pred, own) : placeAt(list, id, own);
        }
      }
      if (c.moved !== undefined && c.moved.tab === tab.id && c.moved.rows === isRows) list = moveBack(list, c.moved.id, c.moved.pred, c.moved.key);
      const stray = [...things.keys()].filter((k) => k.startsWith(prefix) && mine(k.slice(prefix.length)) && !list.some((it) => `${prefix}${it.id}` === k));
      if (stray.length > 0) throw new Error(`the model puts ${stray.join(", ")} back without a place`);
      if (isRows) rows.set(tab.id, list.map((it) => ({ ...(fields(it.id) as { cells: Cells }), id: it.id, key: it.key })));
      else slides.set(tab.id, list.map((it) => ({ ...(fields(it.id) as { title: string; body: string; notes: string }), id: it.id, key: it.key })));
      if (isRows) tab.row_count = list.length;
      else tab.slide_count = list.length;
    }
    const listOf = <T>(prefix: string): T[] =>
      [...things]
        .filter(([k]) => k.startsWith(prefix))
        .map(([, v]) => ({ ...(v as object) }) as T)
        .sort((a, b) => (a as { seq: number }).seq - (b as { seq: number }).seq);
    const sources = listOf<Content["sources"][number]>("source:");
    const files = listOf<Content["files"][number]>("file:");
    return {
      title: things.get("title") as string,
      markdown: things.get("markdown") as string,
      // The counts move by what comes back or goes, as the revert's steps move them (a seeded count stays seeded).
      source_count: now.source_count + sources.length - now.sources.length,
      file_count: now.file_count + files.length - now.files.length,
      strip,
      slides,
      rows,
      sources,
      files,
    };
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
                next_row_n: meta.next_row_n,
              },
            ],
      members: [...this.members].map(([user, role]) => ({ user, role })),
      tabs: this.strip.map((t, position) => ({ id: t.id, type: t.type, label: t.label, position, slide_count: t.slide_count, row_count: t.row_count, columns: JSON.stringify(t.columns) })),
      slides: [...this.slides].flatMap(([tab_id, deck]) => deck.map(({ key, ...s }) => ({ tab_id, idx: key, ...s }))),
      // Cells as the store writes them: JSON of the object in the Sheet's column order.
      sheet_rows: [...this.rows].flatMap(([tab_id, rows]) => rows.map((r) => ({ tab_id, idx: r.key, id: r.id, cells: JSON.stringify(r.cells) }))),
      markdown: this.markdown === "" ? [] : [{ id: 1, text: this.markdown }],
      idempotency: [...this.keys].map(([key, r]) => ({ key, tool: r.tool, result: r.result, created_at: TIME, fingerprint: FINGERPRINT })),
      sources: this.sources.map((s) => ({ ...s, added_at: TIME })),
      files: this.files.map((f) => ({ ...f, added_at: TIME })),
      // The entry as the Note serializes it, byte for byte, its time masked as the projection masks it.
      changes: [...this.log].map(([version, entry]) => ({ version, entry: JSON.stringify({ ...entry, at: TIME }) })),
    };
  }

  /** Takes the times the Note gave its entries (read from its table), so that answers carrying them compare exactly. */
  learnTimes(times: ReadonlyMap<number, string>): void {
    for (const [version, at] of times) {
      const entry = this.log.get(version);
      if (entry !== undefined) entry.at = at;
    }
  }

  /** The log's entries after `version`, oldest first, at most `limit`: copies, as answers carry them. */
  changesAfter(version: number, limit = Number.MAX_SAFE_INTEGER): Row[] {
    return [...this.log.keys()]
      .filter((v) => v > version)
      .sort((a, b) => a - b)
      .slice(0, limit)
      .map((v) => structuredClone(this.log.get(v) as Row));
  }

  /** The oldest version the log holds (null: none). */
  get oldestChange(): number | null {
    return this.log.size === 0 ? null : Math.min(...this.log.keys());
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
      case "list_changes":
        return this.#listChanges(caller, input);
      case "create_tab":
      case "edit_tab":
      case "add_source":
      case "revert_change":
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
          this.meta = { title, version: 1, approved: false, next_tab_n: 1, next_slide_n: 1, next_row_n: 1, source_count: 0, file_count: 0 };
          this.members.set(caller.user, "owner");
          this.strip = FIXED.map((id) => newTab(id, id, FIXED_LABEL[id] as string));
          this.markdown = typeof input.markdown === "string" ? input.markdown : "";
          this.#log(caller, "create_note", { note_title: title });
          this.#origin = entitiesOf(this.#content());
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
    const paged = tab !== undefined && (tab.type === "slides" || tab.type === "sheet");
    if (!text(input.tab_id, 100, { required: true, nonBlank: true })) failures.push(invalid(VALIDATE));
    else if (tab === undefined) failures.push({ code: "tab_not_found", stage: TARGET });
    else if (tab.type === "markdown" && (input.limit !== undefined || input.cursor !== undefined)) failures.push(invalid(TARGET));
    else if (tab.type !== "markdown" && !paged) failures.push({ code: "wrong_tab_type", stage: TARGET });
    // Any limit a Sheet takes passes the arguments' check; a deck's smaller one is checked against the tab.
    if (input.limit !== undefined && !integer(input.limit, 1, LIMIT.rowsPage)) failures.push(invalid(VALIDATE));
    else if (paged && tab.type === "slides" && typeof input.limit === "number" && input.limit > LIMIT.slidesPage) failures.push(invalid(TARGET));
    if (input.cursor !== undefined && !text(input.cursor, 200, { nonBlank: true })) failures.push(invalid(VALIDATE));
    // A page's cursor names its tab and kind of items, its last item (ID and key then), and how many items came before.
    const kind = paged ? `${tab.type === "slides" ? "slides" : "rows"}:${tab.id}` : "";
    let from: { after: number | null; count: number } = { after: null, count: 0 };
    if (input.cursor !== undefined && paged) {
      const known = this.cursors.find((c) => c.cursor === input.cursor && c.kind === kind);
      if (known === undefined) failures.push(invalid(TARGET));
      else {
        // After the last item wherever it is now; when it is gone, from its old key, inclusive (an item appended there is new).
        const items: Item[] = tab?.type === "slides" ? this.#deck(tab.id) : tab === undefined ? [] : this.#sheet(tab.id);
        const last = items.find((item) => item.id === known.lastId);
        from = { after: last !== undefined ? last.key : known.after - 1, count: known.count ?? 0 };
      }
    }
    return {
      failures,
      success: () => {
        const t = tab as Tab;
        const base = { note_id: this.noteId, version: this.version, tab: this.#summary(t) };
        if (t.type === "markdown") return answers({ ...base, text: this.markdown });
        const rest = (t.type === "slides" ? this.#deck(t.id) : this.#sheet(t.id)).filter((item) => from.after === null || item.key > from.after);
        const page: Item[] = [];
        // A page stops early once its text passes the characters a client can take, never before its first item.
        const sizeOf = (item: Item): number =>
          t.type === "slides" ? (item as Slide).title.length + (item as Slide).body.length + (item as Slide).notes.length : JSON.stringify((item as SheetRow).cells).length;
        let chars = 0;
        for (const item of rest.slice(0, typeof input.limit === "number" ? input.limit : t.type === "slides" ? LIMIT.slidesPage : LIMIT.rowsPageDefault)) {
          chars += sizeOf(item);
          if (page.length > 0 && chars > LIMIT.pageChars) break;
          page.push(item);
        }
        const more = rest.length > page.length;
        const listed =
          t.type === "slides"
            ? { slides: (page as Slide[]).map(({ key: _key, ...s }, i) => ({ index: from.count + i, ...s })) }
            : { columns: t.columns, rows: (page as SheetRow[]).map((r, i) => ({ id: r.id, index: from.count + i, cells: r.cells })) };
        return {
          writes: false,
          check: (value) => {
            const problems = same({ ...base, ...listed, more }, { ...value, more: value.next_cursor !== null, next_cursor: undefined });
            if (more && typeof value.next_cursor !== "string") problems.push(`next_cursor: expected a string, got ${show(value.next_cursor)}`);
            return problems;
          },
          apply: (value) => {
            const last = page.at(-1);
            if (typeof value.next_cursor === "string" && last !== undefined) this.cursors.push({ cursor: value.next_cursor, kind, after: last.key, count: from.count + page.length, lastId: last.id });
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
        // Metadata only (docs/spec.md §6): a source's normalized form is the Note's own business.
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

  /**
   * A page of the change log after since_version, oldest first; the next
   * page's since_version while entries follow this page, else null. A
   * since_version ahead of the Note is the caller's mistake.
   */
  #listChanges(caller: Caller, input: Row): Plan {
    const failures: Failure[] = [];
    if (Object.keys(input).some((k) => k !== "since_version" && k !== "limit")) failures.push(invalid(VALIDATE));
    const since = input.since_version;
    if (!integer(since, 0, Number.MAX_SAFE_INTEGER)) failures.push(invalid(VALIDATE));
    if (input.limit !== undefined && !integer(input.limit, 1, LIMIT.changesPage)) failures.push(invalid(VALIDATE));
    failures.push(...this.#access(caller));
    if (integer(since, 0, Number.MAX_SAFE_INTEGER) && (since as number) > this.version) failures.push(invalid(AGAINST_NOTE));
    return {
      failures,
      success: () => {
        // Each entry says whether a revert of it would pass its target checks now (docs/spec.md §10).
        const changes = this.changesAfter(since as number, typeof input.limit === "number" ? input.limit : LIMIT.changesPageDefault).map((c): Row => ({ ...c, revertible: this.revertible(c.version as number) }));
        const last = changes.at(-1)?.version as number | undefined;
        const more = last !== undefined && this.changesAfter(last, 1).length > 0;
        return answers({ note_id: this.noteId, version: this.version, oldest_version: this.oldestChange, changes, next_since_version: more ? last : null });
      },
    };
  }

  /**
   * What a version_conflict says besides both versions: the changes after the
   * caller's version (none when it is ahead), at most the few it carries, and
   * whether those are every change since (none left out, none pruned).
   */
  #conflict(expected: unknown): Failure {
    const current = this.version;
    const behind = typeof expected === "number" && expected < current;
    const changes = behind ? this.changesAfter(expected, LIMIT.conflictChanges) : [];
    const complete = !behind || (changes.length === current - (expected as number) && changes.every((c, i) => c.version === (expected as number) + 1 + i));
    return { code: "version_conflict", stage: VERSION, fields: { expected_version: expected, current_version: current, changes, changes_complete: complete } };
  }

  // ---- the agent's writes --------------------------------------------------

  /** docs/spec.md §3: arguments, access, key, version, target. */
  #keyed(tool: string, caller: Caller, input: Row): Plan {
    const failures: Failure[] = [];
    if (!integer(input.expected_version, 1, Number.MAX_SAFE_INTEGER)) failures.push(invalid(VALIDATE));
    if (!wellFormedKey(input.idempotency_key)) failures.push(invalid(VALIDATE));
    const target = tool === "create_tab" ? this.#createTab(input) : tool === "edit_tab" ? this.#editTab(input) : tool === "revert_change" ? this.#revertTarget(input) : this.#addSource(input);
    failures.push(...target.failures, ...this.#access(caller));

    const key = input.idempotency_key as string;
    const record = this.keys.get(key);
    let replay: Success | undefined;
    if (record !== undefined && record.tool !== tool) {
      failures.push({ code: "idempotency_key_reused", stage: KEY, fields: { first_used_by: record.tool } });
    } else if (record !== undefined) {
      replay = this.#replay(record, input);
    }
    if (input.expected_version !== this.version) failures.push(this.#conflict(input.expected_version));
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
            if (outcome.revert !== undefined) {
              // A revert commits and logs itself, as the person's does.
              outcome.revert(caller);
              this.keys.set(key, { tool, result, args: argumentsOf(input), expected_version: input.expected_version });
              return;
            }
            const before = this.version;
            const content = outcome.writes && this.meta !== null ? this.#content() : null;
            outcome.apply(value);
            // A write that committed (the version moved) is logged: an edit by its own name, the rest by the tool's.
            if (this.version !== before) {
              const operation = tool === "edit_tab" ? String(input.operation) : tool;
              this.#log(caller, operation, outcome.touched(value));
              this.#remember(operation, content, outcome.touched(value));
            }
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
        // The first result, and the Note's version now (the next write's expected_version).
        const problems = same({ ...record.result, replayed: true, current_version: this.version }, withoutDiffer(value));
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
    // An empty deck or Sheet leaves slides, columns and rows out: an empty list is refused. Rows need the columns of the same call.
    if (input.slides !== undefined && (!slides(input.slides, 1, LIMIT.slidesPerCall) || type === "sheet")) failures.push(invalid(VALIDATE));
    if (input.columns !== undefined) {
      failures.push(...sized(newColumns(input.columns, [])));
      if (type === "slides") failures.push(invalid(VALIDATE));
    }
    if (input.rows !== undefined) {
      failures.push(...sized(rowList(input.rows)));
      const columns = Array.isArray(input.columns) ? (input.columns as unknown[]).filter((c): c is string => typeof c === "string") : [];
      if (type === "slides" || input.columns === undefined) failures.push(invalid(VALIDATE));
      else if (Array.isArray(input.rows) && Array.isArray(input.columns) && (input.rows as unknown[]).some((cells) => isRow(cells) && unknownColumn(cells, columns))) {
        failures.push(invalid(VALIDATE));
      }
    }
    if (this.#addedTabs() >= LIMIT.tabs) failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "tabs_per_note" } });
    const deck = type === "slides" && Array.isArray(input.slides) ? input.slides.map(toSlide) : [];
    const columns = type === "sheet" && Array.isArray(input.columns) ? (input.columns as string[]) : [];
    const rows = type === "sheet" && Array.isArray(input.rows) ? (input.rows as Row[]).map((cells) => ({ cells: inColumnOrder(cells, columns) })) : [];
    return {
      failures,
      success: () => {
        const expected = (value: Row): Row => ({
          note_id: this.noteId,
          tab_id: value.tab_id,
          tab_type: type,
          label: typeof input.label === "string" ? input.label.trim() : DEFAULT_LABEL[String(type)],
          position: this.strip.length,
          ...(type === "slides" ? { slide_count: deck.length, slide_ids: value.slide_ids } : { columns, row_count: rows.length, row_ids: value.row_ids }),
          version: this.version + 1,
          replayed: false,
        });
        return {
          writes: true,
          result: (value) => expected(value),
          touched: (value) => (type === "slides" ? { tab_id: value.tab_id, slide_ids: value.slide_ids } : { tab_id: value.tab_id, row_ids: value.row_ids }),
          check: (value, window) => [
            ...this.#newTabId(value.tab_id, String(type), window),
            ...(type === "slides" ? this.#newItemIds("slide", value.slide_ids, deck.length, window) : this.#newItemIds("row", value.row_ids, rows.length, window)),
            ...same(expected(value), withoutDiffer(value, false)),
          ],
          apply: (value) => {
            const id = String(value.tab_id);
            this.#addTab({ ...newTab(id, String(type), String(expected(value).label)), slide_count: deck.length, row_count: rows.length, columns: [...columns] }, this.strip.length);
            if (type === "slides") this.slides.set(id, this.#identify("slide", deck, value.slide_ids, null));
            else this.rows.set(id, this.#identify("row", rows, value.row_ids, null));
            this.#bump();
          },
        };
      },
    };
  }

  #editTab(input: Row): Target {
    const edit = this.#edit(input, AGENT_EDITS);
    return {
      failures: edit.failures,
      success: () => {
        const done = edit.done();
        const t = done.tab;
        const expected = (value: Row): Row => ({
          note_id: this.noteId,
          tab_id: t.id,
          operation: input.operation,
          ...(t.type === "slides" ? { slides_added: done.added, slide_ids: done.ids(value), slide_count: t.slide_count } : { row_ids: done.ids(value), row_count: t.row_count, columns: [...t.columns] }),
          version: done.unchanged ? this.version : this.version + 1,
          replayed: false,
        });
        const touched = (value: Row): Row => ({ tab_id: t.id, [t.type === "slides" ? "slide_ids" : "row_ids"]: done.ids(value) });
        // An update to what is already there changes no content and keeps the version; its key records the answer.
        if (done.unchanged) return { writes: true, result: (value) => expected(value), touched, check: (value, window) => [...done.check(value, window), ...same(expected(value), withoutDiffer(value, false))], apply: () => {} };
        return {
          writes: true,
          result: (value) => expected(value),
          touched,
          check: (value, window) => [...done.check(value, window), ...same(expected(value), withoutDiffer(value, false))],
          apply: (value) => {
            done.apply(value);
            this.#bump();
          },
        };
      },
    };
  }

  /**
   * An edit of a deck's slides or a Sheet's rows and columns, by the agent
   * (edit_tab) or the person (change_tab, which may also move an item): its
   * failures, and what a success does. Every slide or row is named by its
   * exact ID in the tab; an index, a title or another tab's ID is not found.
   */
  #edit(input: Row, allowed: readonly string[]): { failures: Failure[]; done: () => EditDone } {
    const failures: Failure[] = [];
    const none = (): EditDone => {
      throw new Error("the model's edit has no success here");
    };
    const argument = (ok: boolean) => {
      if (!ok) failures.push(invalid(VALIDATE));
    };
    const target = (code: ErrorCode, fields?: Row) => failures.push({ code, stage: TARGET, fields });
    argument(text(input.tab_id, 100, { required: true, nonBlank: true }));
    const op = String(input.operation);
    const rule = EDITS[op];
    if (rule === undefined || !allowed.includes(op)) {
      argument(false);
      return { failures, done: none };
    }
    argument(EDIT_FIELDS.every((field) => input[field] === undefined || rule.fields.includes(field)));
    const itemField = rule.type === "slides" ? "slide_id" : "row_id";
    switch (op) {
      case "slide_add":
        argument(slideOk(input));
        break;
      case "slides_add_outline":
        argument(slides(input.slides, 1, LIMIT.slidesPerCall));
        break;
      case "slide_update":
        argument(itemId(input.slide_id));
        argument(text(input.title, LIMIT.slideTitle, { nonBlank: true }) && text(input.body, LIMIT.slideText) && text(input.notes, LIMIT.slideText));
        argument(["title", "body", "notes"].some((field) => input[field] !== undefined));
        break;
      case "slide_delete":
      case "row_delete":
        argument(itemId(input[itemField]));
        break;
      case "slide_move":
      case "row_move":
        // after_id is required: null moves the item first.
        argument(itemId(input[itemField]) && (input.after_id === null || itemId(input.after_id)));
        break;
      case "columns_add":
        failures.push(...sized(newColumns(input.columns, [])));
        break;
      case "rows_append":
        failures.push(...sized(rowList(input.rows)));
        break;
      case "row_update":
        argument(itemId(input.row_id));
        failures.push(...sized(cellsOk(input.cells, true)));
        break;
    }
    const tab = this.#tab(input.tab_id);
    if (tab === undefined) {
      target("tab_not_found", { tab_id: input.tab_id });
      return { failures, done: none };
    }
    if (tab.type !== rule.type) {
      target("wrong_tab_type");
      return { failures, done: none };
    }
    const deck = this.#deck(tab.id);
    const sheet = this.#sheet(tab.id);
    const items: Item[] = rule.type === "slides" ? deck : sheet;
    /** The item of this tab with exactly this ID, or a failure naming the ID as the error's. */
    const find = (id: unknown): Item | undefined => {
      const item = items.find((it) => it.id === id);
      if (item === undefined) target(rule.type === "slides" ? "slide_not_found" : "row_not_found", { tab_id: tab.id, [itemField]: id });
      return item;
    };
    const existing = (item: Item | undefined, after: Tab, apply: () => void, unchanged = false): EditDone => ({
      tab: after,
      added: 0,
      unchanged,
      ids: () => [(item as Item).id],
      check: () => [],
      apply,
    });
    switch (op) {
      case "slide_add":
      case "slides_add_outline": {
        const added = op === "slide_add" ? [toSlide(input)] : Array.isArray(input.slides) ? input.slides.map(toSlide) : [];
        if (tab.slide_count + added.length > LIMIT.slidesPerTab) target("limit_exceeded", { limit: "slides_per_tab" });
        return {
          failures,
          done: () => ({
            tab: { ...tab, slide_count: tab.slide_count + added.length },
            added: added.length,
            unchanged: false,
            ids: (value) => value.slide_ids,
            check: (value, window) => this.#newItemIds("slide", value.slide_ids, added.length, window),
            apply: (value) => {
              this.slides.set(tab.id, [...deck, ...this.#identify("slide", added, value.slide_ids, deck.at(-1)?.key ?? null)]);
              tab.slide_count += added.length;
            },
          }),
        };
      }
      case "slide_update": {
        const slide = find(input.slide_id) as Slide | undefined;
        return {
          failures,
          done: () => {
            const s = slide as Slide;
            const str = (v: unknown, old: string) => (typeof v === "string" ? v : old);
            const updated = { ...s, title: str(input.title, s.title).trim(), body: str(input.body, s.body), notes: str(input.notes, s.notes) };
            return existing(s, { ...tab }, () => this.slides.set(tab.id, deck.map((x) => (x.id === s.id ? updated : x))), canonical(updated) === canonical(s));
          },
        };
      }
      case "slide_delete":
      case "row_delete": {
        const item = find(input[itemField]);
        const kind = rule.type === "slides" ? "slide_count" : "row_count";
        return {
          failures,
          done: () =>
            existing(item, { ...tab, [kind]: tab[kind] - 1 }, () => {
              if (rule.type === "slides") this.slides.set(tab.id, deck.filter((x) => x !== item));
              else this.rows.set(tab.id, sheet.filter((x) => x !== item));
              tab[kind] -= 1;
            }),
        };
      }
      case "slide_move":
      case "row_move": {
        const item = find(input[itemField]);
        const after = item === undefined || input.after_id === null ? null : find(input.after_id);
        // An item cannot follow itself: the arguments' problem, found once the item is.
        if (item !== undefined && after !== undefined && after !== null && after.id === item.id) failures.push(invalid(TARGET));
        return {
          failures,
          done: () => {
            const moved = moveAfter(items, item as Item, after ?? null);
            return existing(item, { ...tab }, () => {
              if (moved === null) return;
              if (rule.type === "slides") this.slides.set(tab.id, moved.items as Slide[]);
              else this.rows.set(tab.id, moved.items as SheetRow[]);
              if (moved.rekeyed) this.rekeys[rule.type === "slides" ? "slides" : "rows"] += 1;
            }, moved === null);
          },
        };
      }
      case "columns_add": {
        const adding = Array.isArray(input.columns) ? (input.columns as string[]) : [];
        if (adding.some((name) => tab.columns.includes(name))) failures.push(invalid(TARGET));
        if (tab.columns.length + adding.length > LIMIT.columns) target("limit_exceeded", { limit: "columns_per_sheet" });
        return {
          failures,
          done: () => ({ tab: { ...tab, columns: [...tab.columns, ...adding] }, added: 0, unchanged: false, ids: () => [], check: () => [], apply: () => void tab.columns.push(...adding) }),
        };
      }
      case "rows_append": {
        const given = Array.isArray(input.rows) ? (input.rows as Row[]) : [];
        if (given.some((cells) => unknownColumn(cells, tab.columns))) failures.push(invalid(TARGET));
        if (tab.row_count + given.length > LIMIT.rowsPerSheet) target("limit_exceeded", { limit: "rows_per_sheet" });
        const added = given.map((cells) => ({ cells: inColumnOrder(cells, tab.columns) }));
        return {
          failures,
          done: () => ({
            tab: { ...tab, row_count: tab.row_count + added.length },
            added: added.length,
            unchanged: false,
            ids: (value) => value.row_ids,
            check: (value, window) => this.#newItemIds("row", value.row_ids, added.length, window),
            apply: (value) => {
              this.rows.set(tab.id, [...sheet, ...this.#identify("row", added, value.row_ids, sheet.at(-1)?.key ?? null)]);
              tab.row_count += added.length;
            },
          }),
        };
      }
      case "row_update": {
        const cells = isRow(input.cells) ? input.cells : {};
        if (unknownColumn(cells, tab.columns)) failures.push(invalid(TARGET));
        const row = find(input.row_id) as SheetRow | undefined;
        // A row keeps at least one cell (docs/decisions.md): an update that would empty the last is refused.
        if (row !== undefined && Object.keys(inColumnOrder({ ...row.cells, ...cells }, tab.columns)).length === 0) failures.push(invalid(TARGET));
        return {
          failures,
          done: () => {
            const r = row as SheetRow;
            // Only the cells given change; null empties one.
            const updated = { ...r, cells: inColumnOrder({ ...r.cells, ...cells }, tab.columns) };
            return existing(r, { ...tab }, () => this.rows.set(tab.id, sheet.map((x) => (x.id === r.id ? updated : x))), JSON.stringify(updated.cells) === JSON.stringify(r.cells));
          },
        };
      }
      default:
        throw new Error(`the model knows no edit ${op}`);
    }
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
          // A page already attached: the existing source, nothing written, no key recorded (docs/spec.md §5).
          const answer = { note_id: this.noteId, source_id: `source-${existing.seq}`, title: existing.title, url: existing.url, normalized_url: existing.normalized_url, already_attached: true, version: this.version, replayed: false };
          return { writes: false, result: () => answer, touched: () => ({}), check: (value) => same(answer, withoutDiffer(value, false)), apply: () => {} };
        }
        // SQLite's AUTOINCREMENT: a number taken back with its source is never given again.
        const seq = Math.max(this.#seqs.sources, this.sources.at(-1)?.seq ?? 0) + 1;
        const title = String(input.title).trim();
        const expected = { note_id: this.noteId, source_id: `source-${seq}`, title, url: p.url, normalized_url: p.normalized, already_attached: false, version: this.version + 1, replayed: false };
        return {
          writes: true,
          result: () => expected,
          touched: () => ({ tab_id: "sources", source_id: expected.source_id, source_title: title }),
          check: (value) => same(expected, withoutDiffer(value, false)),
          apply: () => {
            this.sources.push({ seq, title, url: p.url, normalized_url: p.normalized, description: typeof input.description === "string" ? input.description : "" });
            this.#seqs.sources = seq;
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
    if (input.expected_version !== undefined && input.expected_version !== this.version) failures.push(this.#conflict(input.expected_version));
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
            if (plan.items !== undefined) problems.push(...plan.items.check(value, window), ...same(plan.items.ids(value), value[plan.items.field], plan.items.field));
            return problems;
          },
          apply: (value) => {
            if (plan.apply === undefined) return;
            if (plan.revert !== undefined) {
              plan.revert(caller);
              return;
            }
            const content = this.meta === null ? null : this.#content();
            plan.apply(value);
            this.#bump();
            // A content edit is logged by its own name (slide_move, rows_append), every other change by its own.
            const operation = name === "change_tab" ? String(input.operation) : name;
            this.#log(caller, operation, plan.touched?.(value) ?? {});
            this.#remember(operation, content, plan.touched?.(value) ?? {});
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
      case "undo_change": {
        argument(integer(input.version, 1, Number.MAX_SAFE_INTEGER) && input.expected_version !== undefined);
        const taken = this.#taking(input.version, failures);
        return {
          failures,
          plan: () => {
            const { done, content } = taken as NonNullable<typeof taken>;
            const tabId = done.back.tab_id as string | undefined;
            return {
              // The tab as the revert leaves it.
              tab: () => {
                const tab = content.strip.find((t) => t.id === tabId);
                return tab === undefined ? {} : summary(tab, content.strip.indexOf(tab));
              },
              apply: () => {},
              revert: (caller: Caller) => this.#revert(caller, done, content),
            };
          },
        };
      }
      case "rename_note": {
        argument(oneLine(input.title, LIMIT.noteTitle));
        const title = String(input.title).trim();
        return {
          failures,
          plan: () => {
            const before = this.meta?.title;
            return title === before ? {} : { touched: () => ({ note_title: title, note_title_before: before }), apply: () => void ((this.meta as Meta).title = title) };
          },
        };
      }
      case "add_member": {
        argument(text(input.user, LIMIT.user, { required: true, nonBlank: true }));
        const user = input.user as string;
        return { failures, plan: () => (this.members.has(user) ? {} : { touched: () => ({ member: user }), apply: () => void this.members.set(user, "editor") }) };
      }
      case "remove_member": {
        argument(oneLine(input.user, LIMIT.user) && (input.user as string).trim() === input.user);
        const user = input.user as string;
        // The last member cannot go: nobody could use the Note after. A non-member's removal changes nothing.
        if (this.members.has(user) && this.members.size === 1) failures.push(invalid(TARGET));
        return { failures, plan: () => (this.members.has(user) ? { touched: () => ({ member: user }), apply: () => void this.members.delete(user) } : {}) };
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
        const made = (id: unknown): Tab => newTab(String(id), String(type), String(tabLabel));
        return {
          failures,
          plan: () => ({
            newTab: String(type),
            tab: (id) => summary(made(id), position),
            touched: (value) => ({ tab_id: (value.tab as Row).id }),
            apply: (value) => {
              const tab = made((value.tab as Row).id);
              this.#addTab(tab, position);
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
            const before = t.label;
            if (before === next) return {};
            return { tab: () => summary({ ...t, label: next }, this.strip.indexOf(t)), touched: () => ({ tab_id: t.id, tab_label_before: before }), apply: () => void (t.label = next) };
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
              touched: () => ({ tab_id: t.id }),
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
            // The deleted tab's ID and label: the answer no longer names it, the log does.
            touched: () => ({ tab_id: (tab as Tab).id, tab_label: (tab as Tab).label }),
            apply: () => {
              this.strip = this.strip.filter((x) => x !== tab);
              this.slides.delete((tab as Tab).id);
              this.rows.delete((tab as Tab).id);
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
              // A replaced deck's slides are new slides, with new IDs and keys from the first.
              items: { field: "slide_ids", ids: (value) => value.slide_ids, check: (value, window) => this.#newItemIds("slide", value.slide_ids, deck.length, window) },
              touched: (value) => ({ tab_id: t.id, slide_ids: value.slide_ids }),
              apply: (value) => {
                this.slides.set(t.id, this.#identify("slide", deck, value.slide_ids, null));
                t.slide_count = deck.length;
              },
            };
          },
        };
      }
      case "change_tab": {
        const edit = this.#edit(input, PERSON_EDITS);
        failures.push(...edit.failures);
        const tab = this.#tab(input.tab_id);
        return {
          failures,
          plan: () => {
            const done = edit.done();
            // A change to what is already so (an update to the same text, a move to where it is) commits nothing.
            if (done.unchanged) return {};
            const field = done.tab.type === "slides" ? "slide_ids" : "row_ids";
            return {
              tab: () => summary(done.tab, this.strip.indexOf(tab as Tab)),
              items: { field, ids: done.ids, check: done.check },
              touched: (value) => ({ tab_id: done.tab.id, [field]: done.ids(value) }),
              apply: (value) => done.apply(value),
            };
          },
        };
      }
      case "set_markdown": {
        argument(text(input.text, LIMIT.markdown, { required: true }));
        return { failures, plan: () => (input.text === this.markdown ? {} : { touched: () => ({ tab_id: "markdown" }), apply: () => void (this.markdown = input.text as string) }) };
      }
      case "add_file": {
        argument(text(input.name, LIMIT.fileName, { required: true, nonBlank: true }));
        argument(text(input.media_type, LIMIT.mediaType, { required: true, nonBlank: true }) && /^[\w.+-]+\/[\w.+-]+$/.test(String(input.media_type)));
        argument(integer(input.size_bytes, 0, LIMIT.fileSize));
        if (this.meta !== null && this.meta.file_count >= LIMIT.files) failures.push({ code: "limit_exceeded", stage: TARGET, fields: { limit: "files_per_note" } });
        const seq = Math.max(this.#seqs.files, this.files.at(-1)?.seq ?? 0) + 1;
        return {
          failures,
          plan: () => ({
            file_id: `file-${seq}`,
            touched: () => ({ tab_id: "files", file_id: `file-${seq}`, file_name: String(input.name).trim() }),
            apply: () => {
              this.files.push({ seq, name: String(input.name).trim(), media_type: String(input.media_type), size_bytes: input.size_bytes as number });
              this.#seqs.files = seq;
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

  /** Checks new slides' or rows' IDs: `{slide|row}-{n}-{base36 ms}`, n from the Note's counter in order, never an ID seen before. */
  #newItemIds(kind: "slide" | "row", ids: unknown, count: number, [from, to]: TimeWindow): string[] {
    const field = `${kind}_ids`;
    if (!Array.isArray(ids) || ids.length !== count) return [`${field}: ${show(ids)} is not a list of ${count} IDs`];
    const problems: string[] = [];
    const meta = this.meta as Meta;
    const next = kind === "slide" ? meta.next_slide_n : meta.next_row_n;
    const seen = kind === "slide" ? this.seenSlideIds : this.seenRowIds;
    ids.forEach((id: unknown, i) => {
      const match = typeof id === "string" ? new RegExp(`^${kind}-(\\d+)-([0-9a-z]+)$`).exec(id) : null;
      if (match === null) return void problems.push(`${field}[${i}]: ${show(id)} is not ${kind}-{n}-{base36 ms}`);
      if (Number(match[1]) !== next + i) problems.push(`${field}[${i}]: ${show(id)} has n = ${match[1]}, the counter says ${next + i}`);
      const ms = parseInt(match[2] as string, 36);
      if (ms < from || ms > to) problems.push(`${field}[${i}]: ${show(id)} has time ${ms}, outside the call's ${from}..${to}`);
      if (seen.has(id as string)) problems.push(`${field}[${i}]: ${show(id)} was handed out before`);
    });
    return problems;
  }

  /**
   * New slides or rows with the IDs the answer gave them (checked by
   * #newItemIds) and keys appended after `last`, the counter moved past them.
   */
  #identify<T extends object>(kind: "slide" | "row", items: readonly T[], ids: unknown, last: number | null): (T & Item)[] {
    const given = ids as string[];
    const meta = this.meta as Meta;
    given.forEach((id) => (kind === "slide" ? this.seenSlideIds : this.seenRowIds).add(id));
    if (kind === "slide") meta.next_slide_n += items.length;
    else meta.next_row_n += items.length;
    const keys = appendKeys(last, items.length);
    return items.map((item, i) => ({ ...item, id: given[i] as string, key: keys[i] as number }));
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

  /**
   * The entry of the change that just committed as the Note's version: who (an
   * agent by its client, else the person), the operation, what it touched
   * (lists of IDs cut to the first few, ids_omitted counting the rest), then the
   * names as they are at this version, fields in the Note's order. The entry
   * that falls out of the log goes.
   */
  #log(caller: Caller, operation: string, touched: Row, reverts?: number): void {
    const version = this.version;
    // A connector's write is an agent's, even one whose caller names no client: it never passes for the person's.
    const actor: Row =
      caller.channel === "app"
        ? { kind: "person", user: caller.user }
        : { kind: "agent", user: caller.user, client_id: caller.client?.id ?? UNKNOWN_CLIENT, client_name: caller.client?.name ?? null };
    const entry: Row = { version, at: TIME, actor, operation };
    let omitted = 0;
    // What it touched in one fixed order (a revert's too), then what a revert took back.
    for (const field of ["tab_id", "slide_ids", "row_ids", "source_id", "file_id", "member"]) {
      const given = touched[field];
      // An empty list (columns_add's rows, an empty deck's slides) is left out.
      if (given === undefined || (Array.isArray(given) && given.length === 0)) continue;
      if (!Array.isArray(given)) entry[field] = given;
      else {
        entry[field] = given.slice(0, LIMIT.idsPerChange);
        omitted += Math.max(0, given.length - LIMIT.idsPerChange);
      }
    }
    if (reverts !== undefined) entry.reverts = reverts;
    if (omitted > 0) entry.ids_omitted = omitted;
    // The names as they are at this version (a tab's label read after the change, unless the change says it), each clipped.
    const label = touched.tab_label ?? (touched.tab_id === undefined ? undefined : this.#tab(touched.tab_id)?.label);
    const names: Row = { ...touched, tab_label: label };
    for (const field of ["note_title", "note_title_before", "tab_label", "tab_label_before", "source_title", "file_name"]) {
      if (typeof names[field] === "string") entry[field] = clipName(names[field] as string);
    }
    this.log.set(version, entry);
    this.log.delete(version - LIMIT.changesKept);
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

  #sheet(id: string): SheetRow[] {
    return this.rows.get(id) ?? [];
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
      // A deck's slides whole; a Sheet's columns (its rows page through read_tab).
      tabs: this.strip.map((t) => {
        if (t.type === "slides") return { ...this.#summary(t), slides: this.#deck(t.id).map(({ key: _key, ...s }, index) => ({ index, ...s })) };
        return t.type === "sheet" ? { ...this.#summary(t), columns: t.columns } : this.#summary(t);
      }),
      source_count: meta.source_count,
      file_count: meta.file_count,
    };
  }
}

interface Target {
  failures: Failure[];
  /** A success of the target step; `result` is what the key records (a write's first answer). */
  success: () => Success & { result: (value: Row) => Row; touched: (value: Row) => Row; revert?: (caller: Caller) => void };
}

/** What a person's change does: nothing (no apply), or a change and what its answer names. */
interface PersonalPlan {
  /** The tab as the change leaves it (a new tab's ID is the answer's). */
  tab?: (id: unknown) => Row;
  file_id?: string;
  /** The type of the tab the change adds. */
  newTab?: string;
  /** The slides or rows the change added, changed, moved or deleted, as the answer names them. */
  items?: { field: string; ids: (value: Row) => unknown; check: (value: Row, window: TimeWindow) => string[] };
  /** What its log entry says it touched (none: nothing but the Note). */
  touched?: (value: Row) => Row;
  apply?: (value: Row) => void;
  /** A revert: runs instead of `apply`, and commits and logs itself. */
  revert?: (caller: Caller) => void;
}

/** What a revert puts back (NoteModel.#content). */
interface Content {
  title: string;
  source_count: number;
  file_count: number;
  strip: Tab[];
  slides: Map<string, Slide[]>;
  rows: Map<string, SheetRow[]>;
  markdown: string;
  sources: NoteModel["sources"];
  files: NoteModel["files"];
}

/** What a change touched, for the conflict check: item keys, the tabs it worked in, the tabs it made what they are. */
interface Touch {
  keys: Set<string>;
  tabs: Set<string>;
  whole: Set<string>;
}

/** Slides or rows a change took away from a tab, each with its key and the item it followed before the change. */
interface Gone {
  tab: string;
  rows: boolean;
  ids: string[];
  /** With the whole tab: they come back with it, at their keys. */
  withTab: boolean;
  /** One item alone, which notes the item it followed (a deletion of one; a revert that took one away). */
  single: boolean;
  keys: Map<string, number>;
  pred: Map<string, string | null>;
}

/** A committed content change, as the model keeps it for taking it back (NoteModel.#record). */
interface Done {
  version: number;
  operation: string;
  /** A revert's: the version it took back. */
  reverts?: number;
  touch: Touch;
  /** Each thing (entitiesOf) it changed: its value before and after (undefined: absent). */
  diff: Map<string, [unknown, unknown]>;
  /** What its log entry names, in its order; `back`: what its revert's entry names. */
  own: Row;
  back: Row;
  /** Tabs it added, deleted or moved; the position before it of each it deleted or moved. */
  stripTabs: string[];
  placeBack: Map<string, number>;
  gone: Gone[];
  /** The slide or row it moved: the item it followed and its key before the change. */
  moved?: { tab: string; id: string; rows: boolean; pred: string | null; key: number };
  /** The version whose trash keeps what it took away; the one whose trash it brought items back from. */
  goneTrash?: number;
  addedFrom?: number;
}

/** The changes that are not content: never taken back. */
const NOT_CONTENT = new Set(["create_note", "delete_note", "set_approval", "add_member", "remove_member"]);

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
  const fields: Partial<Record<ErrorCode, Row[]>> = {};
  let success: Success | null = null;
  for (const late of [false, true]) {
    const stageOf = (f: Failure) => (late && f.late === true ? TARGET : f.stage);
    const first = Math.min(...plan.failures.map(stageOf));
    if (plan.replay !== undefined && !(first <= KEY)) success = plan.replay;
    else if (plan.failures.length > 0) {
      for (const f of plan.failures.filter((x) => stageOf(x) === first)) {
        codes.add(f.code);
        if (f.fields !== undefined && !(fields[f.code] ?? []).some((known) => canonical(known) === canonical(f.fields))) (fields[f.code] ??= []).push(f.fields);
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
  if (tab.type === "sheet") Object.assign(row, { row_count: tab.row_count, column_count: tab.columns.length });
  return row;
}

function newTab(id: string, type: string, label: string): Tab {
  return { id, type, label, slide_count: 0, row_count: 0, columns: [] };
}

/** What an edit of a tab's content does, once its checks passed. */
interface EditDone {
  /** The tab as the edit leaves it. */
  tab: Tab;
  /** How many slides or rows it adds. */
  added: number;
  /** Whether it changes nothing (an update to what is there, a move to where the item is). */
  unchanged: boolean;
  /** The IDs the answer names, in order: the touched item's, or the new items' as the answer gave them (`check` checks those). */
  ids: (value: Row) => unknown;
  check: (value: Row, window: TimeWindow) => string[];
  apply: (value: Row) => void;
}

/** Each edit of a tab's content: the kind of tab it edits, and the fields it takes besides tab_id and operation. */
const EDITS: Record<string, { type: "slides" | "sheet"; fields: string[] }> = {
  slide_add: { type: "slides", fields: ["title", "body", "notes"] },
  slides_add_outline: { type: "slides", fields: ["slides"] },
  slide_update: { type: "slides", fields: ["slide_id", "title", "body", "notes"] },
  slide_delete: { type: "slides", fields: ["slide_id"] },
  slide_move: { type: "slides", fields: ["slide_id", "after_id"] },
  rows_append: { type: "sheet", fields: ["rows"] },
  row_update: { type: "sheet", fields: ["row_id", "cells"] },
  row_delete: { type: "sheet", fields: ["row_id"] },
  columns_add: { type: "sheet", fields: ["columns"] },
  row_move: { type: "sheet", fields: ["row_id", "after_id"] },
};
const EDIT_FIELDS = ["title", "body", "notes", "slides", "slide_id", "rows", "row_id", "cells", "columns", "after_id"];
/** An agent's edits; the person's are those and the moves, which stay the person's. */
export const AGENT_EDITS = ["slide_add", "slides_add_outline", "slide_update", "slide_delete", "rows_append", "row_update", "row_delete", "columns_add"];
export const PERSON_EDITS = [...AGENT_EDITS, "slide_move", "row_move"];

// ---- order keys with gaps (docs/spec.md §3: positions stay the person's; a write touches only its items) ----

/** Keys for `count` items appended after the key `last` (null: an empty tab): the gap apart, the first 0. */
function appendKeys(last: number | null, count: number): number[] {
  const first = last === null ? 0 : last + KEY_GAP;
  return Array.from({ length: count }, (_, i) => first + i * KEY_GAP);
}

/**
 * The items after `item` moves to right after `after` (null: first), in key
 * order, or null when it is already there. Its new key lies halfway between
 * its new neighbours' (rounded down), a gap before the first or after the
 * last; when no key is free between them, every item of the tab first gets a
 * fresh key in order, above the largest in use.
 */
function moveAfter<T extends Item>(items: readonly T[], item: T, after: T | null): { items: T[]; rekeyed: boolean } | null {
  const at = after === null ? -1 : items.findIndex((it) => it.id === after.id);
  if (items[at + 1]?.id === item.id) return null;
  let list = items.map((it) => ({ ...it }));
  const between = (): number | null => {
    const prev = at < 0 ? null : (list[at] as T).key;
    const next = list[at + 1]?.key ?? null;
    if (prev === null) return (next as number) - KEY_GAP;
    if (next === null) return prev + KEY_GAP;
    const middle = Math.floor((prev + next) / 2);
    return middle > prev && middle < next ? middle : null;
  };
  let key = between();
  const rekeyed = key === null;
  if (key === null) {
    const keys = appendKeys(list.at(-1)?.key ?? null, list.length);
    list = list.map((it, i) => ({ ...it, key: keys[i] as number }));
    key = between() as number;
  }
  list = list.map((it) => (it.id === item.id ? { ...it, key: key as number } : it));
  return { items: list.sort((a, b) => a.key - b.key), rekeyed };
}

/** The key that puts an item right after `after` (null: first) in `list` (in key order), or null when no key is free there. */
function follow(list: readonly Item[], after: Item | null): number | null {
  const at = after === null ? -1 : list.findIndex((it) => it.id === after.id);
  const next = list[at + 1]?.key ?? null;
  if (after === null) return next === null ? 0 : next - KEY_GAP;
  if (next === null) return after.key + KEY_GAP;
  const middle = Math.floor((after.key + next) / 2);
  return middle > after.key && middle < next ? middle : null;
}

/** Every item a fresh key, in order, above the keys in use. */
function freshKeys(list: readonly Item[]): Item[] {
  const keys = appendKeys(list.at(-1)?.key ?? null, list.length);
  return list.map((it, i) => ({ ...it, key: keys[i] as number }));
}

const byKey = (list: Item[]): Item[] => list.sort((a, b) => a.key - b.key);

/** Item `id` put right after the item `afterId` (null: first) of `list` (which lacks it): at `own` when that lies there, else between. */
function placeAfter(list: readonly Item[], id: string, afterId: string | null, own: number): Item[] {
  const after = afterId === null ? null : (list.find((it) => it.id === afterId) as Item);
  const next = list[after === null ? 0 : list.indexOf(after) + 1] ?? null;
  if ((after === null || own > after.key) && (next === null || own < next.key)) return byKey([...list, { id, key: own }]);
  const key = follow(list, after);
  if (key !== null) return byKey([...list, { id, key }]);
  const fresh = freshKeys(list);
  return byKey([...fresh, { id, key: follow(fresh, fresh.find((it) => it.id === afterId) ?? null) as number }]);
}

/** Item `id` put back into `list` (which lacks it) at `own`, or right after the item before `own` when an item holds it. */
function placeAt(list: readonly Item[], id: string, own: number): Item[] {
  if (!list.some((it) => it.key === own)) return byKey([...list, { id, key: own }]);
  return placeAfter(list, id, [...list].reverse().find((it) => it.key < own)?.id ?? null, Number.NaN);
}

/** Item `id` of `list` moved back to right after `afterId` (null: first): at `own` when that is free and lies there, else between. */
function moveBack(list: readonly Item[], id: string, afterId: string | null, own: number): Item[] {
  const at = afterId === null ? -1 : list.findIndex((it) => it.id === afterId);
  if (list[at + 1]?.id === id) return [...list];
  const after = at < 0 ? null : (list[at] as Item);
  const next = list[at + 1] ?? null;
  const free = !list.some((it) => it.key === own);
  let key = free && (after === null || own > after.key) && (next === null || own < next.key) ? own : follow(list, after);
  let base = [...list];
  if (key === null) {
    base = freshKeys(list);
    key = follow(base, base.find((it) => it.id === afterId) ?? null) as number;
  }
  return byKey(base.map((it) => (it.id === id ? { ...it, key: key as number } : it)));
}

/**
 * What a revert touched: what the change it took back touched; for a move, the item, the one
 * it followed before the revert and the one it follows after it (src/note/undo.ts item_place).
 */
function revertTouch(taken: Done, revert: Done): Touch {
  const touch: Touch = { keys: new Set(taken.touch.keys), tabs: new Set(taken.touch.tabs), whole: new Set(taken.touch.whole) };
  if (taken.moved !== undefined && revert.moved !== undefined) {
    touch.keys = new Set([taken.moved.id, ...[revert.moved.pred, taken.moved.pred].filter((id): id is string => id !== null)]);
  }
  return touch;
}

/** The limit a revert passes, from the content before it to the content after it, or null. */
function revertLimit(now: Content, after: Content): string | null {
  if (after.strip.filter((t) => t.type === "slides" || t.type === "sheet").length > LIMIT.tabs && after.strip.length > now.strip.length) return "tabs_per_note";
  for (const t of after.strip) {
    const was = now.strip.find((x) => x.id === t.id);
    if (t.slide_count > LIMIT.slidesPerTab && t.slide_count > (was?.slide_count ?? 0)) return "slides_per_tab";
    if (t.row_count > LIMIT.rowsPerSheet && t.row_count > (was?.row_count ?? 0)) return "rows_per_sheet";
    if (t.columns.length > LIMIT.columns && t.columns.length > (was?.columns.length ?? 0)) return "columns_per_sheet";
  }
  if (after.sources.length > now.sources.length && now.source_count >= LIMIT.sources) return "sources_per_note";
  if (after.files.length > now.files.length && now.file_count >= LIMIT.files) return "files_per_note";
  return null;
}

/** Whether two changes touched the same thing (docs/spec.md §10): an item, or a tab one of them made what it is while the other worked in it. */
function overlaps(a: Touch, b: Touch): boolean {
  for (const key of a.keys) if (b.keys.has(key)) return true;
  for (const tab of a.tabs) if (b.whole.has(tab)) return true;
  for (const tab of b.tabs) if (a.whole.has(tab)) return true;
  return false;
}

/** What changed from one content to the other, thing by thing (see entitiesOf): each one's value before and after (undefined: absent). */
function diffOf(before: Content, after: Content, only?: string): Map<string, [unknown, unknown]> {
  const diff = new Map<string, [unknown, unknown]>();
  const compare = (key: string, a: unknown, b: unknown) => {
    if (a !== b && canonical(a) !== canonical(b)) diff.set(key, [a, b]);
  };
  compare("title", before.title, after.title);
  compare("markdown", before.markdown, after.markdown);
  // `only`: the one tab the change worked in (a change touches no other tab, nor its items).
  const tabs = (c: Content) => new Map(c.strip.filter((t) => only === undefined || t.id === only).map((t) => [t.id, { type: t.type, label: t.label, columns: [...t.columns] }]));
  // A tab whose list holds the same item objects before and after: nothing in it changed.
  const same = (x: readonly object[] | undefined, y: readonly object[] | undefined) => x !== undefined && y !== undefined && x.length === y.length && x.every((it, i) => it === y[i]);
  const unchanged = new Set<string>();
  for (const [prefix, b, a] of [["slide", before.slides, after.slides], ["row", before.rows, after.rows]] as const) {
    for (const tab of new Set([...b.keys(), ...a.keys()])) if ((only !== undefined && tab !== only) || same(b.get(tab), a.get(tab))) unchanged.add(`${prefix}:${tab}`);
  }
  const things = (c: Content) => {
    // Items by ID with their tab; an item object unchanged (the same object, in the same tab) is the same thing.
    const all = new Map<string, { prefix: string; tab: string; item: Row }>();
    for (const [prefix, lists] of [["slide", c.slides], ["row", c.rows]] as const) {
      for (const [tab, list] of lists) if (!unchanged.has(`${prefix}:${tab}`)) for (const item of list) all.set(`${prefix}:${item.id}`, { prefix, tab, item: item as unknown as Row });
    }
    for (const s of c.sources) all.set(`source:${s.seq}`, { prefix: "source", tab: "", item: s });
    for (const f of c.files) all.set(`file:${f.seq}`, { prefix: "file", tab: "", item: f });
    return all;
  };
  const value = (x: { prefix: string; tab: string; item: Row } | undefined): unknown => {
    if (x === undefined) return undefined;
    if (x.prefix === "slide") return { tab: x.tab, title: x.item.title, body: x.item.body, notes: x.item.notes };
    if (x.prefix === "row") return { tab: x.tab, cells: { ...(x.item.cells as Cells) } };
    return { ...x.item };
  };
  const [t1, t2] = [tabs(before), tabs(after)];
  for (const id of new Set([...t1.keys(), ...t2.keys()])) {
    const [x, y] = [t1.get(id), t2.get(id)];
    if (x !== undefined && y !== undefined && x.type === y.type && x.label === y.label && x.columns.join("\u0000") === y.columns.join("\u0000")) continue;
    compare(`tab:${id}`, x, y);
  }
  const [a, b] = [things(before), things(after)];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const [x, y] = [a.get(key), b.get(key)];
    if (x !== undefined && y !== undefined && x.item === y.item && x.tab === y.tab) continue;
    compare(key, value(x), value(y));
  }
  return diff;
}

/**
 * Each thing in the Note a change can change, by name, with its value: the title, the
 * Markdown, each tab's type, label and columns, each slide's and row's tab and fields, each
 * source and file. Not where they stand (positions, keys), nor the counters.
 */
function entitiesOf(c: Content): Map<string, unknown> {
  const things = new Map<string, unknown>([
    ["title", c.title],
    ["markdown", c.markdown],
  ]);
  for (const t of c.strip) things.set(`tab:${t.id}`, { type: t.type, label: t.label, columns: [...t.columns] });
  for (const [tab, deck] of c.slides) for (const s of deck) things.set(`slide:${s.id}`, { tab, title: s.title, body: s.body, notes: s.notes });
  for (const [tab, rows] of c.rows) for (const r of rows) things.set(`row:${r.id}`, { tab, cells: { ...r.cells } });
  for (const s of c.sources) things.set(`source:${s.seq}`, { ...s });
  for (const f of c.files) things.set(`file:${f.seq}`, { ...f });
  return things;
}

// ---- argument rules (docs/spec.md §2, §4 and the README's limits) ---------------------

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

function toSlide(slide: unknown): Omit<Slide, "id" | "key"> {
  const s = slide as Row;
  return { title: String(s.title).trim(), body: typeof s.body === "string" ? s.body : "", notes: typeof s.notes === "string" ? s.notes : "" };
}

/** A slide's or a row's ID as given: text, never a number (an index). Whether it names an item is the target's check. */
function itemId(value: unknown): boolean {
  return text(value, LIMIT.itemId, { required: true, nonBlank: true });
}

/**
 * What the Note's checks of a Sheet's arguments say: nothing wrong, a
 * malformed argument, or a size limit passed (a list or a cell too long),
 * which the Note tells only when nothing is malformed.
 */
type SizeCheck = "ok" | "invalid" | { limit: string };

function sized(check: SizeCheck): Failure[] {
  if (check === "ok") return [];
  return check === "invalid" ? [invalid(VALIDATE)] : [{ code: "limit_exceeded", stage: SIZES, fields: { limit: check.limit } }];
}

/** The worst of several checks: a malformed argument over a limit, a limit over nothing. */
function worst(checks: readonly SizeCheck[]): SizeCheck {
  return checks.find((c) => c === "invalid") ?? checks.find((c) => c !== "ok") ?? "ok";
}

/** New column names: 1 to the limit (more is the limit, the names unread), each non-blank on one line without spaces at its ends, none twice, none "__proto__". */
function newColumns(value: unknown, existing: readonly string[]): SizeCheck {
  if (!Array.isArray(value) || value.length < 1) return "invalid";
  if (value.length > LIMIT.columns) return { limit: "columns_per_sheet" };
  const names = value as unknown[];
  const wellFormed = names.every(
    (name) =>
      oneLine(name, LIMIT.columnName) &&
      (name as string).trim() === name &&
      name !== "__proto__" &&
      (name as string).normalize("NFC") === name &&
      !/[\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/.test(name as string),
  );
  return wellFormed && new Set(names).size === names.length && names.every((name) => !existing.includes(name as string)) ? "ok" : "invalid";
}

/** Rows to add: 1 to the per-call limit (more is the limit, the rows unread), each a row's cells. */
function rowList(value: unknown): SizeCheck {
  if (!Array.isArray(value) || value.length < 1) return "invalid";
  if (value.length > LIMIT.rowsPerCall) return { limit: "rows_per_call" };
  return worst(value.map((cells) => cellsOk(cells, false)));
}

/** A row's cells: at least one, at most a Sheet's columns, each text (longer than the limit: the limit) or a finite number (or null to empty it, where `nullable`). */
function cellsOk(value: unknown, nullable: boolean): SizeCheck {
  if (!isRow(value)) return "invalid";
  const entries = Object.entries(value);
  if (entries.length < 1 || entries.length > LIMIT.columns) return "invalid";
  return worst(
    entries.map(([name, cell]): SizeCheck => {
      if (name.length > LIMIT.columnName) return "invalid";
      if (typeof cell === "number") return Number.isFinite(cell) ? "ok" : "invalid";
      if (typeof cell === "string") return cell.length > LIMIT.cell ? { limit: "cell_length" } : text(cell, LIMIT.cell) ? "ok" : "invalid";
      return nullable && cell === null ? "ok" : "invalid";
    }),
  );
}

function unknownColumn(cells: Row, columns: readonly string[]): boolean {
  return Object.keys(cells).some((name) => !columns.includes(name));
}

/** The cells as stored: in the Sheet's column order, an emptied (null) cell left out. */
function inColumnOrder(cells: Row, columns: readonly string[]): Cells {
  return Object.fromEntries(columns.flatMap((name) => (Object.hasOwn(cells, name) && cells[name] !== null && cells[name] !== undefined ? [[name, cells[name] as string | number]] : [])));
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

/** A name as a log entry keeps it (docs/spec.md): at most 100 UTF-16 units; a longer one is its first 99 (98 when the 99th would split a surrogate pair) and "…". */
function clipName(name: string): string {
  if (name.length <= 100) return name;
  const code = name.charCodeAt(98);
  return `${name.slice(0, code >= 0xd800 && code <= 0xdbff ? 98 : 99)}…`;
}
