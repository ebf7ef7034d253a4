/**
 * Generated histories of one Note for the history test: the steps (agent and
 * person operations, valid and not, restarts, bulk steps that reach the big
 * limits), as fast-check commands, and the run that checks every step's answer
 * and every table against the reference model.
 */
import fc from "fast-check";
import { canonical, LIMIT, NoteModel, show, URLS, type Call, type Caller, type ErrorCode, type Expectation, type Row, type Tables, type TimeWindow } from "./note-model.js";
import { differences, dumpText, invariants, ordered, project, sqliteRules } from "./note-tables.js";

export type Answer = { ok: true; value: Row } | { ok: false; error: Row } | { thrown: string };

/** A Note under test: the Durable Object over SQLite, or the domain over the in-memory store. */
export interface NoteUnderTest {
  readonly store: "sqlite" | "memory";
  readonly noteId: string;
  /** Sends the calls in order and reads every table after them (rows as stored), in one visit. */
  execute(calls: Call[]): Promise<{ answers: Answer[]; tables: Tables }>;
  /** Every table, rows as stored. */
  tables(): Promise<Tables>;
  /** A new instance over the same storage. */
  restart(): Promise<void>;
  /** Sets the Note's counters as a Note with that many sources or files has them: a seed below the operations. */
  seedCounters(counters: { source_count?: number; file_count?: number }): Promise<void>;
  /** The clock new tab IDs read, in milliseconds. */
  now(): number;
}

/** How often each outcome came up in a run of histories, by "operation: outcome". */
export type Tally = Map<string, number>;

function count(tally: Tally, what: string): void {
  tally.set(what, (tally.get(what) ?? 0) + 1);
}

/**
 * What a default run must have exercised, or its passing proves little: every
 * operation's success (and a replay of each keyed one), every error code,
 * every limit reached, and restarts.
 */
export function uncovered(tally: Tally): string[] {
  const seen = [...tally.keys()];
  const operations = ["create_note", "set_approval", "add_member", "rename_note", "add_tab", "rename_tab", "move_tab", "delete_tab", "set_slides", "set_markdown", "add_file", "create_tab", "edit_tab", "add_source", "list_tabs", "read_tab", "list_attachments", "read_note"];
  const codes = ["invalid_arguments", "note_not_found", "note_not_approved", "note_exists", "version_conflict", "tab_not_found", "wrong_tab_type", "idempotency_key_reused", "invalid_url", "limit_exceeded"];
  const wanted = [
    ...operations.map((op) => `${op}: ok`),
    ...["create_tab", "edit_tab", "add_source"].map((op) => `${op}: replayed`),
    ...["tabs_per_note", "slides_per_tab", "sources_per_note", "files_per_note"].map((limit) => `limit: ${limit}`),
    "restart",
  ];
  return [...wanted.filter((w) => !tally.has(w)), ...codes.filter((code) => !seen.some((k) => k.endsWith(`: ${code}`))).map((code) => `any ${code}`)];
}

/** How the Note stands before the generated steps. */
export type Start = "approved" | "created" | "empty";

/** How far a tab ID's time may stand from the test's clock: workerd moves its clock only at I/O. */
const CLOCK_SLACK_MS = 2_000;
const app = (user: string): Caller => ({ user, channel: "app" });
const agent = (user: string): Caller => ({ user, channel: "connector" });

/** One history being played: after every step, the answer and every table against the model. */
export class Run {
  readonly #trail: string[] = [];
  #tables: Tables = {};
  #first: Tables = {};
  #text = "";

  private constructor(
    readonly note: NoteUnderTest,
    readonly model: NoteModel,
    readonly tally: Tally,
  ) {}

  static async start(note: NoteUnderTest, model: NoteModel, start: Start, tally: Tally): Promise<Run> {
    const run = new Run(note, model, tally);
    run.#first = await note.tables();
    run.#check("the Note before any call", run.#first, "write");
    if (start !== "empty") await run.call({ caller: app("alice"), name: "create_note", input: { title: "Plan" } });
    if (start === "approved") await run.call({ caller: app("alice"), name: "set_approval", input: { approved: true } });
    return run;
  }

  async call(call: Call): Promise<void> {
    const expectation = this.model.predict(call);
    const from = this.note.now();
    const { answers, tables } = await this.note.execute([call]);
    const answer = answers[0] as Answer;
    this.#judge(call, expectation, answer, [from - CLOCK_SLACK_MS, this.note.now() + CLOCK_SLACK_MS]);
    const ok = "ok" in answer && answer.ok;
    this.#check(`${call.name} answered ${outcome(answer)}`, tables, !ok ? "same" : expectation.success?.writes === true ? "write" : "no-op");
  }

  /** Calls that must all succeed, sent in one visit, the tables checked once at the end. */
  async bulk(calls: Call[]): Promise<void> {
    const from = this.note.now();
    const { answers, tables } = await this.note.execute(calls);
    const window: TimeWindow = [from - CLOCK_SLACK_MS, this.note.now() + CLOCK_SLACK_MS];
    this.#trail.push(`${this.#trail.length + 1}. ${calls.length} × ${calls[0]?.name ?? "nothing"} ${show(calls[0]?.input)} in bulk`);
    calls.forEach((call, i) => this.#judge(call, this.model.predict(call), answers[i] as Answer, window, false));
    this.#check(`${calls.length} calls in bulk`, tables, "write", calls.length);
  }

  async restart(): Promise<void> {
    count(this.tally, "restart");
    await this.note.restart();
    this.#trail.push(`${this.#trail.length + 1}. restart`);
    this.#check("after a restart", await this.note.tables(), "same");
  }

  async seedCounters(counters: { source_count?: number; file_count?: number }): Promise<void> {
    await this.note.seedCounters(counters);
    Object.assign(this.model.meta ?? {}, counters);
    this.#trail.push(`${this.#trail.length + 1}. seed counters ${show(counters)}`);
    this.#check("after seeding counters", await this.note.tables(), "write");
  }

  #judge(call: Call, expected: Expectation, answer: Answer, window: TimeWindow, trail = true): void {
    if (trail) this.#trail.push(`${this.#trail.length + 1}. ${call.caller.user}/${call.caller.channel} ${call.name} ${show(call.input)} → ${outcome(answer)}`);
    count(this.tally, `${call.name}: ${"ok" in answer ? (answer.ok ? (answer.value.replayed === true ? "replayed" : "ok") : answer.error.code) : "thrown"}`);
    if ("ok" in answer && !answer.ok && answer.error.code === "limit_exceeded") count(this.tally, `limit: ${String(answer.error.limit)}`);
    const want = [...expected.codes, ...(expected.success === null ? [] : ["success"])].join(" or ");
    if ("thrown" in answer) throw this.#failure(`${call.name} threw (a caller gets a 500); expected ${want}`, [answer.thrown]);
    if (!answer.ok) {
      const code = answer.error.code as ErrorCode;
      if (!expected.codes.includes(code)) throw this.#failure(`${call.name} answered ${code}; expected ${want}`, [show(answer.error)]);
      const fields = expected.fields[code] ?? {};
      const wrong = Object.keys(fields).filter((k) => canonical(fields[k]) !== canonical(answer.error[k]));
      if (wrong.length > 0) throw this.#failure(`${call.name}'s ${code} carries wrong details`, wrong.map((k) => `${k}: expected ${show(fields[k])}, got ${show(answer.error[k])}`));
      return;
    }
    if (expected.success === null) throw this.#failure(`${call.name} succeeded; expected ${want}`, [show(answer.value)]);
    const problems = expected.success.check(answer.value, window);
    if (problems.length > 0) throw this.#failure(`${call.name}'s answer differs from the model's`, problems);
    expected.success.apply(answer.value);
  }

  /**
   * The tables after a step: the model's rows, the version up by at most one
   * a call, and for a step that must not write, every byte as before.
   */
  #check(what: string, tables: Tables, change: Change, calls = 1): void {
    const text = dumpText(tables);
    const problems: string[] = [];
    if (change !== "write" && this.#text !== "" && text !== this.#text) problems.push("the tables changed:", ...differences(this.#tables, tables));
    const { rows, problems: projection } = project(tables);
    problems.push(...projection, ...invariants(rows));
    const versions = [this.#tables.meta?.[0]?.version ?? 0, tables.meta?.[0]?.version ?? 0].map(Number) as [number, number];
    const bump = versions[1] - versions[0];
    if (bump < 0 || bump > (change === "write" ? calls : 0)) problems.push(`the version went from ${versions[0]} to ${versions[1]}`);
    if (this.note.store === "sqlite") problems.push(...sqliteRules(tables, this.#first, this.#tables));
    problems.push(...this.model.learnSlideIds(rows.slides ?? []));
    const model = differences(ordered(this.model.tables()), rows);
    if (model.length > 0) problems.push("rows differ from the model's:", ...model);
    if (problems.length > 0) throw this.#failure(`${what}, but`, problems);
    this.#tables = tables;
    this.#text = text;
  }

  #failure(what: string, problems: string[]): Error {
    return new Error(`[${this.note.store}] ${what}\n  ${problems.join("\n  ")}\nThe calls of this history, as sent:\n  ${this.#trail.join("\n  ")}`);
  }
}

/**
 * What a step may change: "same", nothing at all (a failure, a restart);
 * "no-op", nothing either (a success that writes nothing: a read, a replay, a
 * change to what is already so, which queues no directory entry); "write",
 * what the model says.
 */
type Change = "same" | "no-op" | "write";

function outcome(answer: Answer): string {
  if ("thrown" in answer) return "a thrown error";
  if (!answer.ok) return String(answer.error.code);
  const { version, replayed } = answer.value;
  return typeof version === "number" ? `ok (version ${version}${replayed === true ? ", replayed" : ""})` : "ok";
}

// ---- the steps ------------------------------------------------------------------

type Model = NoteModel;

/** A step that is one call, its arguments chosen now and resolved against the model when it runs. */
class CallStep<P> implements fc.AsyncCommand<Model, Run> {
  constructor(
    readonly op: string,
    readonly params: P,
    readonly resolve: (p: P, m: Model) => Call,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Run): Promise<void> {
    await r.call(this.resolve(this.params, m));
  }
  toString(): string {
    return `${this.op} ${canonical(this.params)}`;
  }
}

/** A step of its own kind: a restart, a bulk of tabs, a resend, a seed. */
class Special implements fc.AsyncCommand<Model, Run> {
  constructor(
    readonly name: string,
    readonly when: (m: Readonly<Model>) => boolean,
    readonly play: (m: Model, r: Run) => Promise<void>,
  ) {}
  check(m: Readonly<Model>): boolean {
    return this.when(m);
  }
  run(m: Model, r: Run): Promise<void> {
    return this.play(m, r);
  }
  toString(): string {
    return this.name;
  }
}

/** Strings at, past and around the limits, and the usual mistakes. */
const long = (n: number, c = "x") => c.repeat(n);
const LABELS: Record<string, string | undefined> = {
  none: undefined,
  plain: "Deck",
  padded: "  Padded deck  ",
  max: long(LIMIT.label, "L"),
  over: long(LIMIT.label + 1, "L"),
  blank: "   ",
  newline: "two\nlines",
  control: "bell\u0007",
  typeName: "slides",
  fixedLabel: "Sources",
};
const LABEL_WEIGHTS = { none: 8, plain: 6, padded: 1, max: 1, typeName: 1, fixedLabel: 1, over: 1, blank: 1, newline: 1, control: 1 };
const TITLES: Record<string, string | undefined> = { plain: "Plan B", padded: "  Padded  ", blank: "  ", missing: undefined, control: "a\u0007b", multiline: "Plan\nB", separated: "Plan\u2028B" };

export interface StepOptions {
  /** Operations (or "missing", the calls that leave a required field out) this run leaves out. */
  leaveOut: ReadonlySet<string>;
  /** Histories in the run: restarts get rarer in longer runs, as each costs every later call (see ObjectNote). */
  runs: number;
}

/** Every kind of step, weighted; one of them is picked for each step of a history. */
export function steps(options: StepOptions): fc.Arbitrary<fc.AsyncCommand<Model, Run>> {
  const pick = <T extends string>(weights: Record<T, number>): fc.Arbitrary<T> =>
    fc.oneof(
      ...Object.entries<number>(weights)
        .filter(([name]) => !(name === "missing" && options.leaveOut.has("missing")))
        .map(([name, weight]) => ({ weight, arbitrary: fc.constant(name as T) })),
    );
  const who = fc.oneof({ weight: 8, arbitrary: fc.constant("alice") }, { weight: 1, arbitrary: fc.constant("bob") });
  // Most calls are right in every field, so that histories get far; the wrong ones have one flaw or two.
  const version = pick({ current: 30, stale: 1, future: 1, zero: 1, fraction: 1, missing: 1 });
  const personVersion = pick({ none: 20, current: 4, stale: 1, future: 1, zero: 1 });
  const key = fc.oneof(
    { weight: 20, arbitrary: fc.constant("fresh") },
    { weight: 6, arbitrary: fc.record({ reuse: fc.nat(30) }) },
    { weight: 6, arbitrary: pick({ max: 1, empty: 1, long: 1, nonAscii: 1, control: 1, missing: 1 }) },
  );
  const tab = fc.oneof(
    { weight: 8, arbitrary: fc.record({ deck: fc.nat(30) }) },
    { weight: 4, arbitrary: fc.record({ made: fc.nat(30) }) },
    { weight: 3, arbitrary: fc.record({ strip: fc.nat(30) }) },
    { weight: 1, arbitrary: fc.record({ label: fc.nat(30) }) },
    { weight: 3, arbitrary: pick({ markdown: 1, files: 1, sources: 1, slides: 1, sheet: 1, unknown: 1, missing: 1 }) },
  );
  const label = pick(LABEL_WEIGHTS);
  const flaw = pick({ none: 30, paddedTitle: 1, maxTitle: 1, maxBody: 1, blankTitle: 1, longTitle: 1, longBody: 1, longNotes: 1, controlTitle: 1, missing: 1 });
  const deck = (counts: Record<string, number>) => fc.record({ count: pick(counts), flaw });

  // Restarts stay about one in four histories however many there are; every other step is that much likelier.
  const scale = Math.max(1, Math.round(options.runs / 300));
  const call = <P>(op: string, weight: number, params: fc.Arbitrary<P>, resolve: (p: P, m: Model) => Call) => ({
    weight: weight * scale,
    arbitrary: params.map((p) => new CallStep(op, p, resolve) as fc.AsyncCommand<Model, Run>),
  });
  const person = <P extends { who: string }>(name: string, weight: number, params: fc.Arbitrary<P>, input: (p: P, m: Model) => Row) =>
    call(name, weight, params, (p, m) => ({ caller: app(p.who), name, input: compact(input(p, m)) }));
  const tool = <P extends { who: string }>(name: string, weight: number, params: fc.Arbitrary<P>, input: (p: P, m: Model) => Row) =>
    call(name, weight, params, (p, m) => ({ caller: agent(p.who), name, input: compact(input(p, m)) }));

  const all = {
    create_note: person(
      "create_note",
      2,
      fc.record({ who, title: pick({ plain: 4, padded: 1, max: 1, over: 1, blank: 1, missing: 1, control: 1, multiline: 1 }), markdown: pick({ none: 3, text: 1 }) }),
      (p) => ({ title: p.title === "max" ? long(LIMIT.noteTitle) : p.title === "over" ? long(LIMIT.noteTitle + 1) : TITLES[p.title], markdown: p.markdown === "text" ? "# Start" : undefined }),
    ),
    set_approval: person("set_approval", 3, fc.record({ who, approved: pick({ yes: 3, no: 1, missing: 1 }), v: personVersion }), (p, m) => ({
      approved: p.approved === "missing" ? undefined : p.approved === "yes",
      expected_version: personalVersion(p.v, m),
    })),
    rename_note: person(
      "rename_note",
      2,
      fc.record({ who, title: pick({ plain: 4, other: 2, same: 1, padded: 1, max: 1, over: 1, blank: 1, missing: 1, control: 1, multiline: 1, separated: 1 }), v: personVersion }),
      (p, m) => ({
        title: p.title === "max" ? long(LIMIT.noteTitle) : p.title === "over" ? long(LIMIT.noteTitle + 1) : p.title === "other" ? "Plan C" : p.title === "same" ? m.meta?.title : TITLES[p.title],
        expected_version: personalVersion(p.v, m),
      }),
    ),
    add_member: person("add_member", 2, fc.record({ who, user: pick({ bob: 4, alice: 1, carol: 1, max: 1, over: 1, blank: 1, missing: 1 }), v: personVersion }), (p, m) => ({
      user: { bob: "bob", alice: "alice", carol: "carol", max: long(LIMIT.user, "u"), over: long(LIMIT.user + 1, "u"), blank: " ", missing: undefined }[p.user],
      expected_version: personalVersion(p.v, m),
    })),
    add_tab: person(
      "add_tab",
      5,
      fc.record({ who, type: pick({ slides: 6, sheet: 3, markdown: 1, missing: 1 }), label, position: pick({ none: 8, first: 2, second: 1, end: 2, past: 1, far: 2, negative: 1, fraction: 1 }), v: personVersion }),
      (p, m) => ({
        tab_type: p.type === "missing" ? undefined : p.type,
        label: LABELS[p.label],
        position: { none: undefined, first: 0, second: 1, end: m.strip.length, past: m.strip.length + 1, far: 99, negative: -1, fraction: 1.5 }[p.position],
        expected_version: personalVersion(p.v, m),
      }),
    ),
    rename_tab: person("rename_tab", 2, fc.record({ who, tab, label, v: personVersion }), (p, m) => ({ tab_id: tabId(p.tab, m), label: LABELS[p.label], expected_version: personalVersion(p.v, m) })),
    move_tab: person(
      "move_tab",
      3,
      fc.record({ who, tab, position: pick({ first: 2, second: 2, last: 2, past: 1, far: 1, negative: 1, fraction: 1, missing: 1 }), v: personVersion }),
      (p, m) => ({
        tab_id: tabId(p.tab, m),
        position: { first: 0, second: 1, last: m.strip.length - 1, past: m.strip.length, far: 99, negative: -1, fraction: 1.5, missing: undefined }[p.position],
        expected_version: personalVersion(p.v, m),
      }),
    ),
    delete_tab: person("delete_tab", 3, fc.record({ who, tab, v: personVersion }), (p, m) => ({ tab_id: tabId(p.tab, m), expected_version: personalVersion(p.v, m) })),
    set_slides: person(
      "set_slides",
      3,
      fc.record({ who, tab, slides: deck({ 0: 1, 1: 3, 3: 3, 480: 2, 481: 2, 499: 2, 500: 2, 501: 1, missing: 1 }), v: personVersion }),
      (p, m) => ({ tab_id: tabId(p.tab, m), slides: slideList(p.slides), expected_version: personalVersion(p.v, m) }),
    ),
    set_markdown: person("set_markdown", 2, fc.record({ who, text: pick({ one: 3, two: 3, empty: 1, max: 1, over: 1, control: 1, missing: 1 }), v: personVersion }), (p, m) => ({
      text: { one: "# One", two: "# Two\n\nwith a paragraph", empty: "", max: long(LIMIT.markdown, "m"), over: long(LIMIT.markdown + 1, "m"), control: "a\u0001b", missing: undefined }[p.text],
      expected_version: personalVersion(p.v, m),
    })),
    add_file: person(
      "add_file",
      2,
      fc.record({
        who,
        name: pick({ plain: 12, padded: 1, max: 1, over: 1, blank: 1, missing: 1 }),
        media: pick({ pdf: 10, text: 2, bad: 1, missing: 1 }),
        size: pick({ small: 10, zero: 1, max: 1, over: 1, negative: 1, fraction: 1, missing: 1 }),
        v: personVersion,
      }),
      (p, m) => ({
        name: { plain: "report.pdf", padded: "  notes.txt  ", max: long(LIMIT.fileName, "f"), over: long(LIMIT.fileName + 1, "f"), blank: "  ", missing: undefined }[p.name],
        media_type: { pdf: "application/pdf", text: "text/plain", bad: "not a type", missing: undefined }[p.media],
        size_bytes: { small: 1234, zero: 0, max: LIMIT.fileSize, over: LIMIT.fileSize + 1, negative: -1, fraction: 1.5, missing: undefined }[p.size],
        expected_version: personalVersion(p.v, m),
      }),
    ),
    create_tab: tool(
      "create_tab",
      7,
      fc.record({ who, v: version, key, type: pick({ slides: 6, sheet: 3, markdown: 1, missing: 1 }), label, slides: deck({ none: 6, 1: 3, 2: 2, 20: 1, 21: 1 }) }),
      (p, m) => ({
        ...write(p, m),
        tab_type: p.type === "missing" ? undefined : p.type,
        label: LABELS[p.label],
        slides: slideList(p.slides),
      }),
    ),
    edit_tab: tool(
      "edit_tab",
      7,
      fc.record({
        who,
        v: version,
        key,
        tab,
        operation: pick({ slide_add: 8, slides_add_outline: 6, both: 1, slides_add: 1, missing: 1 }),
        title: pick({ plain: 20, padded: 1, max: 1, blank: 1, over: 1, missing: 1, control: 1 }),
        slides: deck({ 0: 1, 1: 4, 2: 3, 20: 2, 21: 1 }),
      }),
      (p, m) => {
        const title = p.title === "max" ? long(LIMIT.slideTitle) : p.title === "over" ? long(LIMIT.slideTitle + 1) : TITLES[p.title];
        const base = { ...write(p, m), tab_id: tabId(p.tab, m) };
        if (p.operation === "slide_add") return { ...base, operation: "slide_add", title, body: "Added" };
        if (p.operation === "slides_add_outline") return { ...base, operation: "slides_add_outline", slides: slideList(p.slides) };
        if (p.operation === "both") return { ...base, operation: "slide_add", title, slides: slideList(p.slides) };
        return { ...base, operation: p.operation === "missing" ? undefined : p.operation, title };
      },
    ),
    add_source: tool(
      "add_source",
      5,
      fc.record({
        who,
        v: version,
        key,
        url: pick({ ...Object.fromEntries(Object.entries(URLS).map(([k, u]) => [k, u.url === null ? 1 : 3])), missing: 1 }),
        title: pick({ plain: 10, padded: 1, max: 1, over: 1, blank: 1, missing: 1 }),
        description: pick({ none: 6, plain: 2, max: 1, over: 1 }),
      }),
      (p, m) => ({
        ...write(p, m),
        url: URLS[p.url]?.given,
        title: { plain: "A report", padded: "  A report  ", max: long(LIMIT.sourceTitle), over: long(LIMIT.sourceTitle + 1), blank: " ", missing: undefined }[p.title],
        description: { none: undefined, plain: "Why it matters", max: long(LIMIT.description, "d"), over: long(LIMIT.description + 1, "d") }[p.description],
      }),
    ),
    list_tabs: call("list_tabs", 2, fc.record({ who, channel: pick({ connector: 3, app: 1 }) }), (p) => ({ caller: { user: p.who, channel: p.channel }, name: "list_tabs", input: {} })),
    read_tab: tool(
      "read_tab",
      3,
      fc.record({
        who,
        tab,
        limit: pick({ none: 4, one: 2, two: 2, max: 1, over: 1 }),
        cursor: fc.oneof(
          { weight: 3, arbitrary: fc.constant("none") },
          { weight: 3, arbitrary: fc.record({ follow: fc.nat(10) }) },
          { weight: 1, arbitrary: fc.record({ seen: fc.nat(10) }) },
          { weight: 1, arbitrary: fc.constant("garbage") },
        ),
      }),
      (p, m) => {
        const limit = { none: undefined, one: 1, two: 2, max: LIMIT.slidesPage, over: LIMIT.slidesPage + 1 }[p.limit];
        // Mostly the next page of a deck read before (its own tab); sometimes any cursor, on any tab.
        const decks = m.cursors.filter((c) => c.kind.startsWith("slides:"));
        const followed = typeof p.cursor === "object" && "follow" in p.cursor ? decks[p.cursor.follow % Math.max(1, decks.length)] : undefined;
        if (followed !== undefined) return { tab_id: followed.kind.slice("slides:".length), limit, cursor: followed.cursor };
        const cursor = typeof p.cursor === "object" && "seen" in p.cursor ? m.cursors[p.cursor.seen % Math.max(1, m.cursors.length)]?.cursor : p.cursor === "garbage" ? "bm90LWEtY3Vyc29y" : undefined;
        return { tab_id: tabId(p.tab, m), limit, cursor };
      },
    ),
    list_attachments: tool(
      "list_attachments",
      2,
      fc.record({
        who,
        kind: pick({ sources: 3, files: 2, bogus: 1 }),
        limit: pick({ none: 2, one: 2, two: 2, max: 1, over: 1, zero: 1 }),
        cursor: fc.oneof({ weight: 3, arbitrary: fc.constant("none") }, { weight: 2, arbitrary: fc.record({ seen: fc.nat(10) }) }, { weight: 1, arbitrary: fc.constant("garbage") }),
      }),
      (p, m) => ({
        kind: p.kind,
        limit: { none: undefined, one: 1, two: 2, max: LIMIT.page, over: LIMIT.page + 1, zero: 0 }[p.limit],
        cursor: typeof p.cursor === "object" ? m.cursors[p.cursor.seen % Math.max(1, m.cursors.length)]?.cursor : p.cursor === "garbage" ? "bm90LWEtY3Vyc29y" : undefined,
      }),
    ),
    read_note: person("read_note", 1, fc.record({ who }), () => ({})),
    // An agent trying the person's operations.
    door: call("door", 1, fc.record({ who, name: pick({ set_approval: 1, add_tab: 1, add_member: 1, read_note: 1 }) }), (p) => ({
      caller: agent(p.who),
      name: p.name,
      input: { set_approval: { approved: true }, add_tab: { tab_type: "slides" }, add_member: { user: "mallory" }, read_note: {} }[p.name],
    })),
    resend: {
      weight: 3 * scale,
      arbitrary: fc.record({ i: fc.nat(30), version: pick({ same: 2, current: 1 }) }).map(
        ({ i, version: v }) =>
          new Special(
            `resend ${canonical({ i, version: v })}`,
            (m) => m.keyedCalls.length > 0,
            async (m, r) => {
              const first = m.keyedCalls[i % m.keyedCalls.length] as Call;
              await r.call({ ...first, input: v === "same" ? first.input : { ...first.input, expected_version: m.version } });
            },
          ),
      ),
    },
    fill_tabs: {
      weight: scale,
      arbitrary: pick({ 99: 1, 100: 1 }).map(
        (target) =>
          new Special(
            `fill_tabs ${target}`,
            (m) => m.meta !== null,
            async (m, r) => {
              const owner = [...m.members].find(([, role]) => role === "owner")?.[0] ?? "alice";
              const added = m.strip.length - 3;
              const calls = Array.from({ length: Math.max(0, Number(target) - added) }, () => ({ caller: app(owner), name: "add_tab", input: { tab_type: "sheet" } }));
              await r.bulk(calls);
            },
          ),
      ),
    },
    fill_deck: {
      weight: scale,
      arbitrary: fc.record({ deck: fc.nat(30), target: pick({ 480: 1, 499: 1, 500: 1 }) }).map(
        ({ deck, target }) =>
          new Special(
            `fill_deck ${canonical({ deck, target })}`,
            (m) => m.meta !== null && m.strip.some((t) => t.type === "slides"),
            async (m, r) => {
              // A deck near its slide limit, by the person, then the agent's outline of 20 appended to it
              // (480 + 20 fill it, one more is past the limit) and resent as after a lost answer.
              const decks = m.strip.filter((t) => t.type === "slides");
              const owner = [...m.members].find(([, role]) => role === "owner")?.[0] ?? "alice";
              const tab_id = decks[deck % decks.length]?.id;
              const slides = Array.from({ length: Number(target) }, (_, i) => ({ title: `Slide ${i + 1}` }));
              await r.call({ caller: app(owner), name: "set_slides", input: { tab_id, slides } });
              const outline = { expected_version: m.version, idempotency_key: m.freshKey(), tab_id, operation: "slides_add_outline", slides: slides.slice(0, 20) };
              await r.call({ caller: { user: owner, channel: "connector" }, name: "edit_tab", input: outline });
              await r.call({ caller: { user: owner, channel: "connector" }, name: "edit_tab", input: outline });
            },
          ),
      ),
    },
    seed_counters: {
      weight: 2 * scale,
      arbitrary: fc.record({ which: pick({ sources: 1, files: 1 }), below: pick({ one: 1, none: 1 }) }).map(
        ({ which, below }) =>
          new Special(
            `seed_counters ${canonical({ which, below })}`,
            (m) => m.meta !== null,
            (_m, r) => {
              const less = below === "one" ? 1 : 0;
              return r.seedCounters(which === "sources" ? { source_count: LIMIT.sources - less } : { file_count: LIMIT.files - less });
            },
          ),
      ),
    },
    restart: { weight: 1, arbitrary: fc.constant(new Special("restart", () => true, (_m, r) => r.restart())) },
  };
  const kept = Object.entries(all)
    .filter(([name]) => !options.leaveOut.has(name))
    .map(([, weighted]) => weighted);
  return fc.oneof(...kept);
}

function write(p: { v: string; key: string | { reuse: number } }, m: Model): Row {
  return { expected_version: { current: m.version, stale: m.version - 1, future: m.version + 1, zero: 0, fraction: 1.5, missing: undefined }[p.v], idempotency_key: idempotencyKey(p.key, m) };
}

function personalVersion(choice: string, m: Model): number | undefined {
  return { none: undefined, current: m.version, stale: m.version - 1, future: m.version + 1, zero: 0 }[choice];
}

function idempotencyKey(choice: string | { reuse: number }, m: Model): string | undefined {
  if (typeof choice === "object") return m.usedKeys[choice.reuse % Math.max(1, m.usedKeys.length)] ?? m.freshKey();
  if (choice === "fresh") return m.freshKey();
  if (choice === "max") return m.freshKey().padEnd(LIMIT.key, "=");
  return { empty: "", long: long(LIMIT.key + 1, "k"), nonAscii: "clé-1", control: "tab\tkey", missing: undefined }[choice];
}

/** A tab ID as a caller might send it: a deck's, one handed out (perhaps deleted since), a fixed one, a type, a label, or none. */
function tabId(ref: string | { deck: number } | { made: number } | { strip: number } | { label: number }, m: Model): string | undefined {
  const at = <T>(list: T[], i: number): T | undefined => list[i % Math.max(1, list.length)];
  if (typeof ref === "object") {
    if ("deck" in ref) return at(m.strip.filter((t) => t.type === "slides"), ref.deck)?.id ?? at(m.seenTabIds, ref.deck) ?? "slides-1-0";
    if ("made" in ref) return at(m.seenTabIds, ref.made) ?? "slides-1-0";
    if ("strip" in ref) return at(m.strip, ref.strip)?.id ?? "markdown";
    return at(m.strip, ref.label)?.label ?? "Markdown";
  }
  return { unknown: "slides-404-zz", missing: undefined }[ref as "unknown" | "missing"] ?? ref;
}

/** `count` slides, the last one with the flaw (`missing` count: no slides field). */
function slideList({ count, flaw }: { count: string; flaw: string }): Row[] | undefined {
  if (count === "missing" || count === "none") return undefined;
  const slides: Row[] = Array.from({ length: Number(count) }, (_, i) => compact({ title: `Slide ${i + 1}`, body: i % 2 === 1 ? `Body ${i + 1}` : undefined, notes: i % 3 === 2 ? "Notes" : undefined }));
  const last = slides.at(-1);
  if (last === undefined) return slides;
  const flawed: Row = {
    none: {},
    blankTitle: { title: "   " },
    paddedTitle: { title: "  Padded slide  " },
    maxTitle: { title: long(LIMIT.slideTitle, "t") },
    longTitle: { title: long(LIMIT.slideTitle + 1, "t") },
    maxBody: { body: long(LIMIT.slideText, "b") },
    longBody: { body: long(LIMIT.slideText + 1, "b") },
    longNotes: { notes: long(LIMIT.slideText + 1, "n") },
    controlTitle: { title: "a\u0007b" },
    missing: { title: undefined },
  }[flaw] as Row;
  slides[slides.length - 1] = compact({ ...last, ...flawed });
  return slides;
}

/** An object without its undefined fields: a field left out, as JSON would carry it. */
function compact(row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined));
}
