/**
 * Generated histories of one Note for the history test: the steps (agent and
 * person operations, valid and not, restarts, bulk steps that reach the big
 * limits), as fast-check commands, and the run that checks every step's answer
 * and every table against the reference model.
 */
import fc from "fast-check";
import { AGENT_EDITS, canonical, LIMIT, NoteModel, PERSON_EDITS, show, UNKNOWN_CLIENT, URLS, type Call, type Caller, type ErrorCode, type Expectation, type Row, type Tables, type TimeWindow } from "./note-model.js";
import { differences, dumpText, entryTimes, invariants, ordered, project, sqliteRules } from "./note-tables.js";

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
  const operations = ["create_note", "set_approval", "add_member", "remove_member", "list_changes", "rename_note", "add_tab", "rename_tab", "move_tab", "delete_tab", "set_slides", "change_tab", "set_markdown", "add_file", "create_tab", "edit_tab", "add_source", "list_tabs", "read_tab", "list_attachments", "read_note", "undo_change", "revert_change"];
  const codes = ["invalid_arguments", "note_not_found", "note_not_approved", "note_exists", "version_conflict", "tab_not_found", "wrong_tab_type", "slide_not_found", "row_not_found", "idempotency_key_reused", "invalid_url", "limit_exceeded", "revert_conflict", "change_not_found", "not_revertible"];
  const wanted = [
    ...operations.map((op) => `${op}: ok`),
    ...["create_tab", "edit_tab", "add_source", "revert_change"].map((op) => `${op}: replayed`),
    ...AGENT_EDITS.flatMap((op) => [`edit_tab ${op}: ok`, `edit_tab ${op}: replayed`]),
    ...PERSON_EDITS.map((op) => `change_tab ${op}: ok`),
    ...["slide_not_found", "row_not_found"].flatMap((code) => [`edit_tab: ${code}`, `change_tab: ${code}`]),
    "read_tab: rows first page with more",
    "read_tab: rows next page",
    ...["tabs_per_note", "slides_per_tab", "sources_per_note", "files_per_note", "columns_per_sheet", "rows_per_sheet"].map((limit) => `limit: ${limit}`),
    "rekey slides",
    "rekey rows",
    "restart",
    // The change log: removals of each kind, a log paged whole and past its pruning, entries by each kind of actor.
    ...["member: ok", "non-member: ok", "last member: invalid_arguments"].map((o) => `remove_member ${o}`),
    "list_changes: invalid_arguments",
    "list_changes: paged several pages",
    "list_changes: paged a pruned log",
    "log pruned",
    "version_conflict: changes complete",
    "version_conflict: changes incomplete",
    "entry by the person",
    "entry by a named agent",
    "entry by an unnamed agent",
    "entry by an agent without a client",
    // Taking changes back: the latest, an earlier one (allowed, and refused for a later change), a revert (a redo).
    "undo_change latest: ok",
    "undo_change earlier: ok",
    "undo_change earlier: revert_conflict",
    "undo_change of a revert: ok",
  ];
  return [...wanted.filter((w) => !tally.has(w)), ...codes.filter((code) => !seen.some((k) => k.endsWith(`: ${code}`))).map((code) => `any ${code}`)];
}

/** How the Note stands before the generated steps. */
export type Start = "approved" | "created" | "empty";

/** How far a tab ID's time may stand from the test's clock: workerd moves its clock only at I/O. */
const CLOCK_SLACK_MS = 2_000;
const app = (user: string): Caller => ({ user, channel: "app" });
/**
 * The agents' OAuth clients: most registered a name, some none (the log says
 * null); `none` is a connector caller that names no client at all, which the
 * MCP route never sends but the log must still call an agent.
 */
const CLIENTS = {
  claude: { id: "client-claude", name: "Claude" },
  inspector: { id: "client-inspector", name: "MCP Inspector" },
  unnamed: { id: "client-7f3a", name: null },
  none: undefined,
} as const;
type ClientName = keyof typeof CLIENTS;
const agent = (user: string, client: ClientName = "claude"): Caller => {
  const given = CLIENTS[client];
  return given === undefined ? { user, channel: "connector" } : { user, channel: "connector", client: { ...given } };
};
/** Who acts for the Note in the bulk and setup steps: its owner while a member, else any member. */
const someMember = (m: Readonly<Model>): string => [...m.members].find(([, role]) => role === "owner")?.[0] ?? [...m.members.keys()][0] ?? "alice";

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

  async call(call: Call): Promise<Answer> {
    const tag = tagOf(call, this.model);
    const expectation = this.model.predict(call);
    const from = this.note.now();
    const { answers, tables } = await this.note.execute([call]);
    const answer = checkRevertible(call, answers[0] as Answer, this);
    const window: TimeWindow = [from - CLOCK_SLACK_MS, this.note.now() + CLOCK_SLACK_MS];
    this.#judge(call, expectation, answer, window);
    if (tag !== undefined) count(this.tally, `${call.name} ${tag}: ${outcomeWord(answer)}`);
    const ok = "ok" in answer && answer.ok;
    this.#check(`${call.name} answered ${outcome(answer)}`, tables, !ok ? "same" : expectation.success?.writes === true ? "write" : "no-op", 1, window);
    return answer;
  }

  /** Fails the history with this trail: for a step's own checks beyond the model's (public for the helpers below). */
  fail(what: string, problems: string[]): never {
    throw this.#failure(what, problems);
  }

  /** Calls that must all succeed, sent in one visit, the tables checked once at the end. */
  async bulk(calls: Call[]): Promise<void> {
    const from = this.note.now();
    const { answers, tables } = await this.note.execute(calls);
    const window: TimeWindow = [from - CLOCK_SLACK_MS, this.note.now() + CLOCK_SLACK_MS];
    this.#trail.push(`${this.#trail.length + 1}. ${calls.length} × ${calls[0]?.name ?? "nothing"} ${show(calls[0]?.input)} in bulk`);
    calls.forEach((call, i) => this.#judge(call, this.model.predict(call), answers[i] as Answer, window, false));
    this.#check(`${calls.length} calls in bulk`, tables, "write", calls.length, window);
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
    const said = outcomeWord(answer);
    count(this.tally, `${call.name}: ${said}`);
    if ("ok" in answer && !answer.ok && answer.error.code === "version_conflict" && Array.isArray(answer.error.changes) && answer.error.changes.length > 0) {
      count(this.tally, `version_conflict: changes ${answer.error.changes_complete === true ? "complete" : "incomplete"}`);
    }
    // An edit's outcome by operation too: every new operation must be seen to succeed (and replay).
    if (typeof call.input.operation === "string") count(this.tally, `${call.name} ${call.input.operation}: ${said}`);
    if (call.name === "read_tab" && "ok" in answer && answer.ok && Array.isArray(answer.value.rows)) {
      count(this.tally, `read_tab: rows ${call.input.cursor === undefined ? "first" : "next"} page${typeof answer.value.next_cursor === "string" ? " with more" : ""}`);
    }
    if ("ok" in answer && !answer.ok && answer.error.code === "limit_exceeded") count(this.tally, `limit: ${String(answer.error.limit)}`);
    const want = [...expected.codes, ...(expected.success === null ? [] : ["success"])].join(" or ");
    if ("thrown" in answer) throw this.#failure(`${call.name} threw (a caller gets a 500); expected ${want}`, [answer.thrown]);
    if (!answer.ok) {
      const code = answer.error.code as ErrorCode;
      if (!expected.codes.includes(code)) throw this.#failure(`${call.name} answered ${code}; expected ${want}`, [show(answer.error)]);
      const options = expected.fields[code] ?? [{}];
      const wrong = options.map((fields) => Object.keys(fields).filter((k) => canonical(fields[k]) !== canonical(answer.error[k])).map((k) => `${k}: expected ${show(fields[k])}, got ${show(answer.error[k])}`));
      if (!wrong.some((w) => w.length === 0)) throw this.#failure(`${call.name}'s ${code} carries wrong details`, wrong.map((w) => w.join("; ")));
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
  #check(what: string, tables: Tables, change: Change, calls = 1, window?: TimeWindow): void {
    const text = dumpText(tables);
    const problems: string[] = [];
    if (change !== "write" && this.#text !== "" && text !== this.#text) problems.push("the tables changed:", ...differences(this.#tables, tables));
    const { rows, problems: projection } = project(tables);
    problems.push(...projection, ...invariants(rows));
    const versions = [this.#tables.meta?.[0]?.version ?? 0, tables.meta?.[0]?.version ?? 0].map(Number) as [number, number];
    const bump = versions[1] - versions[0];
    if (bump < 0 || bump > (change === "write" ? calls : 0)) problems.push(`the version went from ${versions[0]} to ${versions[1]}`);
    problems.push(...this.#newEntries(tables, versions, window));
    if (this.note.store === "sqlite") problems.push(...sqliteRules(tables, this.#first, this.#tables));
    const model = differences(ordered(this.model.tables()), rows);
    if (model.length > 0) problems.push("rows differ from the model's:", ...model);
    if (problems.length > 0) throw this.#failure(`${what}, but`, problems);
    this.#tables = tables;
    this.#text = text;
    this.model.learnTimes(entryTimes(tables));
  }

  /**
   * The log's entries this step added: one per version it committed, none
   * for a failed or unchanged call, each timed within the step. Counts who
   * wrote them, so a run shows entries by agents (named or not) and the person.
   */
  #newEntries(tables: Tables, [from, to]: [number, number], window: TimeWindow | undefined): string[] {
    const before = new Set((this.#tables.changes ?? []).map((r) => Number(r.version)));
    const added = (tables.changes ?? []).filter((r) => !before.has(Number(r.version)));
    const problems: string[] = [];
    // The versions it committed, but those a bulk of more than the log keeps pushed out again.
    const committed = Array.from({ length: Math.max(0, to - Math.max(from, to - LIMIT.changesKept)) }, (_, i) => Math.max(from, to - LIMIT.changesKept) + 1 + i);
    if (canonical(added.map((r) => Number(r.version))) !== canonical(committed)) {
      problems.push(`the log gained entries ${show(added.map((r) => r.version))} for the changes committed as ${show(committed)}`);
    }
    const pruned = [...before].filter((v) => !(tables.changes ?? []).some((r) => Number(r.version) === v));
    if (pruned.length > 0) count(this.tally, "log pruned");
    for (const row of added) {
      const entry = JSON.parse(String(row.entry)) as { at: string; actor: { kind: string; client_id?: string; client_name?: string | null } };
      const ms = Date.parse(entry.at);
      if (window !== undefined && !(ms >= window[0] && ms <= window[1])) problems.push(`entry ${show(row.version)} has time ${entry.at}, outside the step's ${new Date(window[0]).toISOString()}..${new Date(window[1]).toISOString()}`);
      const agentKind = entry.actor.client_id === UNKNOWN_CLIENT ? "an agent without a client" : entry.actor.client_name === null ? "an unnamed agent" : "a named agent";
      count(this.tally, `entry by ${entry.actor.kind === "person" ? "the person" : agentKind}`);
    }
    return problems;
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

function outcomeWord(answer: Answer): string {
  return "ok" in answer ? (answer.ok ? (answer.value.replayed === true ? "replayed" : "ok") : String(answer.error.code)) : "thrown";
}

/**
 * A finer outcome a run must reach, told before the call from the Note as the
 * model has it: a removal of a member, of the last member, of a non-member.
 */
function tagOf(call: Call, m: Model): string | undefined {
  if ((call.name === "undo_change" || call.name === "revert_change") && typeof call.input.version === "number") {
    const entry = m.log.get(call.input.version);
    if (entry === undefined) return undefined;
    return entry.operation === "revert_change" ? "of a revert" : call.input.version === m.version ? "latest" : "earlier";
  }
  const user = String(call.input.user);
  if (call.name !== "remove_member" || !["alice", "bob", "carol", "dave"].includes(user) || m.meta === null) return undefined;
  if (!m.members.has(user)) return "non-member";
  return m.members.size === 1 ? "last member" : "member";
}

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
    readonly play: (m: Model, r: Run) => Promise<unknown>,
  ) {}
  check(m: Readonly<Model>): boolean {
    return this.when(m);
  }
  async run(m: Model, r: Run): Promise<void> {
    await this.play(m, r);
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
  // `old`: 25 versions back, past what a version_conflict lists (its changes are then incomplete).
  const version = pick({ current: 30, stale: 1, old: 1, future: 1, zero: 1, fraction: 1, missing: 1 });
  const personVersion = pick({ none: 20, current: 4, stale: 1, old: 1, future: 1, zero: 1 });
  const key = fc.oneof(
    { weight: 20, arbitrary: fc.constant("fresh") },
    { weight: 6, arbitrary: fc.record({ reuse: fc.nat(30) }) },
    { weight: 6, arbitrary: pick({ max: 1, empty: 1, long: 1, nonAscii: 1, control: 1, missing: 1 }) },
  );
  const tab = fc.oneof(
    { weight: 8, arbitrary: fc.record({ deck: fc.nat(30) }) },
    { weight: 4, arbitrary: fc.record({ sheet: fc.nat(30) }) },
    { weight: 4, arbitrary: fc.record({ made: fc.nat(30) }) },
    { weight: 3, arbitrary: fc.record({ strip: fc.nat(30) }) },
    { weight: 1, arbitrary: fc.record({ label: fc.nat(30) }) },
    { weight: 3, arbitrary: pick({ markdown: 1, files: 1, sources: 1, slides: 1, sheet: 1, unknown: 1, missing: 1 }) },
  );
  const label = pick(LABEL_WEIGHTS);
  const flaw = pick({ none: 30, paddedTitle: 1, maxTitle: 1, maxBody: 1, blankTitle: 1, longTitle: 1, longBody: 1, longNotes: 1, controlTitle: 1, missing: 1 });
  const deck = (counts: Record<string, number>) => fc.record({ count: pick(counts), flaw });
  // An edit's tab: mostly one of the kind its operation edits; sometimes any tab a caller might name.
  const editTab = fc.oneof({ weight: 12, arbitrary: fc.record({ fit: fc.nat(30) }) }, { weight: 2, arbitrary: tab });
  // A slide or row as a caller names it: mostly one of the tab's own; sometimes another tab's, a deleted one, an index, a title, a number, the other kind's ID.
  const item = fc.oneof(
    { weight: 30, arbitrary: fc.record({ own: fc.nat(30) }) },
    { weight: 1, arbitrary: fc.record({ other: fc.nat(30) }) },
    { weight: 1, arbitrary: fc.record({ seen: fc.nat(60) }) },
    { weight: 3, arbitrary: pick({ index: 1, title: 1, number: 1, otherKind: 1, unknown: 1, missing: 1 }) },
  );
  const after = fc.oneof(
    { weight: 3, arbitrary: fc.constant("first") },
    { weight: 8, arbitrary: fc.record({ own: fc.nat(30) }) },
    { weight: 2, arbitrary: pick({ self: 1, unknown: 1, missing: 1, number: 1, other: 1 }) },
  );
  const content = {
    update: pick({ body: 8, title: 4, all: 4, same: 3, none: 1, blankTitle: 1, overBody: 1, padded: 1 }),
    rows: pick({ 1: 8, 3: 6, 500: 1, 501: 1, wide: 1, unknownColumn: 1, emptyRow: 1, zero: 1, missing: 1 }),
    cells: pick({ one: 10, two: 5, clear: 5, same: 3, maxCell: 1, unknownColumn: 1, empty: 1, overCell: 1, badValue: 1, infinite: 1, missing: 1 }),
    columns: pick({ one: 8, two: 4, numeric: 1, existing: 1, twice: 1, blank: 1, padded: 1, proto: 1, fill: 2, over: 3, zero: 1 }),
  };
  const edit = (operations: Record<string, number>) =>
    fc.record({ operation: pick(operations), tab: editTab, item, after, title: pick({ plain: 20, padded: 1, max: 1, blank: 1, over: 1, missing: 1, control: 1 }), slides: deck({ 0: 1, 1: 4, 2: 3, 20: 2, 21: 1 }), ...content });

  // Restarts stay about one in four histories however many there are; every other step is that much likelier.
  const scale = Math.max(1, Math.round(options.runs / 300));
  const call = <P>(op: string, weight: number, params: fc.Arbitrary<P>, resolve: (p: P, m: Model) => Call) => ({
    weight: weight * scale,
    arbitrary: params.map((p) => new CallStep(op, p, resolve) as fc.AsyncCommand<Model, Run>),
  });
  const person = <P extends { who: string }>(name: string, weight: number, params: fc.Arbitrary<P>, input: (p: P, m: Model) => Row) =>
    call(name, weight, params, (p, m) => ({ caller: app(p.who), name, input: compact(input(p, m)) }));
  // An agent's call carries its OAuth client, with the name it registered or none.
  const client = pick<ClientName>({ claude: 4, inspector: 2, unnamed: 2, none: 1 });
  const tool = <P extends { who: string }>(name: string, weight: number, params: fc.Arbitrary<P>, input: (p: P, m: Model) => Row) =>
    call(name, weight, fc.tuple(params, client), ([p, c], m) => ({ caller: agent(p.who, c), name, input: compact(input(p, m)) }));

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
    remove_member: person(
      "remove_member",
      2,
      fc.record({ who, user: pick({ member: 6, bob: 2, alice: 1, carol: 1, dave: 1, padded: 1, blank: 1, newline: 1, over: 1, missing: 1 }), v: personVersion }),
      (p, m) => ({
        // `member`: the newest member, so that a removal mostly finds someone to remove (the only member: refused).
        user: { member: [...m.members.keys()].at(-1) ?? "bob", bob: "bob", alice: "alice", carol: "carol", dave: "dave", padded: " bob ", blank: " ", newline: "bob\nalice", over: long(LIMIT.user + 1, "u"), missing: undefined }[p.user],
        expected_version: personalVersion(p.v, m),
      }),
    ),
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
      fc.record({
        who,
        v: version,
        key,
        type: pick({ slides: 6, sheet: 4, markdown: 1, missing: 1 }),
        label,
        slides: deck({ none: 6, 1: 3, 2: 2, 20: 1, 21: 1 }),
        columns: pick({ none: 3, three: 10, max: 1, over: 1, twice: 1, blank: 1 }),
        rows: pick({ none: 3, 1: 4, 3: 6, 500: 1, 501: 1, unknownColumn: 1, emptyRow: 1 }),
      }),
      (p, m) => {
        // A Sheet mostly with its own fields; a deck sometimes with a Sheet's, and the other way round.
        const sheetFields = p.type === "sheet" || (p.columns === "three" && p.rows === "none");
        const columns = sheetFields ? createColumns(p.columns) : undefined;
        return {
          ...write(p, m),
          tab_type: p.type === "missing" ? undefined : p.type,
          label: LABELS[p.label],
          slides: p.type === "sheet" && p.slides.count !== "1" ? undefined : slideList(p.slides),
          columns,
          rows: sheetFields ? rowList(p.rows, columns ?? ["Name"]) : undefined,
        };
      },
    ),
    edit_tab: tool(
      "edit_tab",
      10,
      fc.record({
        who,
        v: version,
        key,
        edit: edit({ slide_add: 6, slides_add_outline: 4, slide_update: 8, slide_delete: 4, rows_append: 6, row_update: 8, row_delete: 4, columns_add: 5, both: 1, slides_add: 1, slide_move: 1, missing: 1 }),
      }),
      (p, m) => ({ ...write(p, m), ...editInput(p.edit, m) }),
    ),
    change_tab: person(
      "change_tab",
      7,
      fc.record({
        who,
        v: personVersion,
        edit: edit({ slide_add: 4, slides_add_outline: 2, slide_update: 4, slide_delete: 2, slide_move: 6, rows_append: 4, row_update: 4, row_delete: 2, columns_add: 3, row_move: 6, missing: 1 }),
      }),
      (p, m) => ({ ...editInput(p.edit, m), expected_version: personalVersion(p.v, m) }),
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
      4,
      fc.record({
        who,
        tab: fc.oneof({ weight: 1, arbitrary: tab }, { weight: 1, arbitrary: fc.record({ filled: fc.nat(30) }) }),
        limit: pick({ none: 4, one: 3, two: 3, max: 1, over: 1, rowsMax: 1, rowsOver: 1 }),
        cursor: fc.oneof(
          { weight: 3, arbitrary: fc.constant("none") },
          { weight: 3, arbitrary: fc.record({ follow: fc.nat(10) }) },
          { weight: 2, arbitrary: fc.record({ followRows: fc.nat(10) }) },
          { weight: 1, arbitrary: fc.record({ seen: fc.nat(10) }) },
          { weight: 1, arbitrary: fc.constant("garbage") },
        ),
      }),
      (p, m) => {
        const limit = { none: undefined, one: 1, two: 2, max: LIMIT.slidesPage, over: LIMIT.slidesPage + 1, rowsMax: LIMIT.rowsPage, rowsOver: LIMIT.rowsPage + 1 }[p.limit];
        // Mostly the next page of a deck or Sheet read before (its own tab); sometimes any cursor, on any tab.
        const pages = m.cursors.filter((c) => c.kind.startsWith("slides:") || c.kind.startsWith("rows:"));
        const rows = pages.filter((c) => c.kind.startsWith("rows:"));
        const followed =
          typeof p.cursor !== "object" ? undefined : "follow" in p.cursor ? at(pages, p.cursor.follow) : "followRows" in p.cursor ? at(rows.length > 0 ? rows : pages, p.cursor.followRows) : undefined;
        if (followed !== undefined) return { tab_id: followed.kind.slice(followed.kind.indexOf(":") + 1), limit, cursor: followed.cursor };
        const cursor = typeof p.cursor === "object" && "seen" in p.cursor ? m.cursors[p.cursor.seen % Math.max(1, m.cursors.length)]?.cursor : p.cursor === "garbage" ? "bm90LWEtY3Vyc29y" : undefined;
        // A tab with two items or more, mostly: a page of it can have a next.
        const filled = m.strip.filter((t) => t.slide_count + 2 * t.row_count > 2);
        const tab_id = typeof p.tab === "object" && "filled" in p.tab ? (at(filled, p.tab.filled)?.id ?? "markdown") : tabId(p.tab, m);
        return { tab_id, limit, cursor };
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
    // The person takes a change back (docs/spec.md §10): the latest (a second in a row redoes it), an earlier one in the log
    // (any, one the model says is revertible, a revert, one that is not content), one past the log's ends or before the
    // oldest it keeps, the largest version the tool takes and one past it, 0; or sends a stale version.
    undo_change: person(
      "undo_change",
      4,
      fc.record({
        who,
        target: pick({ latest: 6, earlier: 4, revertible: 4, revert: 2, notContent: 1, first: 1, ahead: 1, pruned: 1, largest: 1, tooLarge: 1, zero: 1 }),
        n: fc.nat(1000),
        stale: pick({ no: 8, yes: 1 }),
      }),
      (p, m) => ({ version: undoTarget(p.target, p.n, m), expected_version: p.stale === "yes" ? m.version - 1 : m.version }),
    ),
    // The agent takes a change back (revert_note_change): a keyed write, its key checked before its version, as the others.
    revert_change: tool(
      "revert_change",
      2,
      fc.record({ who, target: pick({ latest: 6, earlier: 4, revertible: 4, revert: 2, notContent: 1, ahead: 1, zero: 1 }), n: fc.nat(1000), v: version, key }),
      (p, m) => ({ ...write(p, m), version: undoTarget(p.target, p.n, m) }),
    ),
    // An agent's revert whose answer was lost, sent again as it was: the second answer is the first, replayed.
    revert_resent: {
      weight: scale,
      arbitrary: fc.record({ target: pick({ latest: 3, revertible: 2 }), n: fc.nat(1000), client }).map(
        (p) =>
          new Special(
            `revert_resent ${canonical(p)}`,
            (m) => m.meta?.approved === true && m.members.size > 0,
            async (m, r) => {
              const input = { expected_version: m.version, idempotency_key: m.freshKey(), version: undoTarget(p.target, p.n, m) };
              const call = { caller: agent(someMember(m), p.client), name: "revert_change", input };
              await r.call(call);
              await r.call(structuredClone(call));
            },
          ),
      ),
    },
    list_changes: call(
      "list_changes",
      3,
      fc.record({
        who,
        by: pick({ agent: 2, person: 1 }),
        client,
        since: pick({ zero: 3, recent: 3, half: 2, current: 2, oldest: 1, beforeOldest: 1, ahead: 1, negative: 1, fraction: 1, text: 1, missing: 1 }),
        limit: pick({ none: 3, one: 2, two: 2, max: 1, over: 1, zero: 1, fraction: 1 }),
        extra: pick({ no: 12, yes: 1 }),
      }),
      (p, m) => {
        const oldest = m.oldestChange ?? 1;
        const since = { zero: 0, recent: Math.max(0, m.version - 3), half: Math.floor(m.version / 2), current: m.version, oldest: oldest - 1, beforeOldest: Math.max(0, oldest - 2), ahead: m.version + 1, negative: -1, fraction: 1.5, text: "3", missing: undefined }[p.since];
        const limit = { none: undefined, one: 1, two: 2, max: LIMIT.changesPage, over: LIMIT.changesPage + 1, zero: 0, fraction: 2.5 }[p.limit];
        return { caller: p.by === "agent" ? agent(p.who, p.client) : app(p.who), name: "list_changes", input: compact({ since_version: since, limit, cursor: p.extra === "yes" ? "next" : undefined }) };
      },
    ),
    // An agent trying the person's operations.
    door: call("door", 1, fc.record({ who, name: pick({ set_approval: 1, add_tab: 1, add_member: 1, remove_member: 1, read_note: 1 }) }), (p) => ({
      caller: agent(p.who),
      name: p.name,
      input: { set_approval: { approved: true }, add_tab: { tab_type: "slides" }, add_member: { user: "mallory" }, remove_member: { user: "bob" }, read_note: {} }[p.name],
    })),
    page_changes: {
      weight: 3 * scale,
      arbitrary: fc.record({ by: pick({ agent: 1, person: 1 }), limit: pick({ one: 1, two: 2, three: 2, default: 2, max: 1 }), from: pick({ zero: 2, recent: 2, beforeOldest: 1 }) }).map(
        (p) => new Special(`page_changes ${canonical(p)}`, (m) => m.meta !== null && m.members.size > 0, (m, r) => pageChanges(m, r, p)),
      ),
    },
    membership: {
      weight: 2 * scale,
      arbitrary: fc.record({ who, reads: pick({ agent: 1, person: 1 }) }).map(
        ({ who: by, reads }) =>
          new Special(
            `membership ${canonical({ who: by, reads })}`,
            (m) => m.meta !== null && m.members.size > 0,
            async (m, r) => {
              // Carol joins and leaves again: each a change in the log, whom it names. Once gone she cannot read it.
              const member = someMember(m);
              await r.call({ caller: app(member), name: "add_member", input: { user: "carol" } });
              await r.call({ caller: app(m.members.has(by) ? by : member), name: "remove_member", input: { user: "carol" } });
              await r.call({ caller: reads === "agent" ? agent("carol", "unnamed") : app("carol"), name: "list_changes", input: { since_version: 0 } });
            },
          ),
      ),
    },
    churn: {
      weight: scale,
      arbitrary: fc.record({ past: pick({ 0: 1, 1: 2, 30: 2 }), roll: fc.nat(3) }).map(
        ({ past, roll }) =>
          new Special(
            `churn ${canonical({ past, roll })}`,
            // Rare: every later step of the history compares a thousand entries.
            (m) => roll === 0 && m.meta !== null && m.members.size > 0 && m.version < LIMIT.changesKept + Number(past),
            async (m, r) => {
              // The person rewrites the Markdown until the Note's version reaches the log's length and passes it:
              // each commit past it drops the oldest entry.
              const member = someMember(m);
              const calls: Call[] = [];
              for (let v = m.version; v < LIMIT.changesKept + Number(past); v++) calls.push({ caller: app(member), name: "set_markdown", input: { text: `# Draft ${v + 1}` } });
              await r.bulk(calls);
              // The log read whole from before its oldest entry: from the oldest it keeps.
              await pageChanges(m, r, { by: "agent", limit: "max", from: "beforeOldest" });
            },
          ),
      ),
    },
    resend: {
      weight: 5 * scale,
      arbitrary: fc.record({ i: fc.nat(30), version: pick({ same: 2, current: 1 }), which: pick({ any: 1, committed: 2, last: 3 }) }).map(
        ({ i, version: v, which }) =>
          new Special(
            `resend ${canonical({ i, version: v, which })}`,
            (m) => m.keyedCalls.length > 0,
            async (m, r) => {
              // Any call sent before, or mostly one that committed (the last one, as after its answer was lost): it must replay.
              const committed = m.keyedCalls.filter((c) => m.keys.get(String(c.input.idempotency_key))?.tool === c.name);
              const calls = which !== "any" && committed.length > 0 ? (which === "last" ? committed.slice(-1) : committed) : m.keyedCalls;
              const first = calls[i % calls.length] as Call;
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
              const owner = someMember(m);
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
              const owner = someMember(m);
              const tab_id = decks[deck % decks.length]?.id;
              const slides = Array.from({ length: Number(target) }, (_, i) => ({ title: `Slide ${i + 1}` }));
              await r.call({ caller: app(owner), name: "set_slides", input: { tab_id, slides } });
              const outline = { expected_version: m.version, idempotency_key: m.freshKey(), tab_id, operation: "slides_add_outline", slides: slides.slice(0, 20) };
              await r.call({ caller: agent(owner), name: "edit_tab", input: outline });
              await r.call({ caller: agent(owner), name: "edit_tab", input: outline });
            },
          ),
      ),
    },
    sound_edit: {
      weight: 6 * scale,
      arbitrary: fc.record({ operation: fc.constantFrom(...PERSON_EDITS), by: pick({ agent: 1, person: 1 }), tab: fc.nat(30), item: fc.nat(30), who }).map(
        ({ operation, by, tab: t, item: i, who: user }) =>
          new Special(
            `sound_edit ${canonical({ operation, by, tab: t, item: i, who: user })}`,
            (m) => m.meta !== null && m.members.size > 0,
            async (m, r) => {
              // First what the edit needs, by a member: the Note approved for the agent's, a tab of its kind, items in it.
              await prepareEdit(m, r, operation, by === "agent");
              // A well-formed edit of an item that is there: the person's, or the agent's with its answer lost and the same call
              // resent, which gets the first result back.
              const given: EditParams = { operation, tab: { fit: t }, item: { own: i }, after: { own: i + 1 }, title: "plain", slides: { count: "2", flaw: "none" }, update: "body", rows: "3", cells: "one", columns: "one" };
              const fields = compact(editInput(given, m));
              if (by === "person" || !(AGENT_EDITS as readonly string[]).includes(operation)) return r.call({ caller: app(user), name: "change_tab", input: fields });
              const call = { caller: agent(user), name: "edit_tab", input: { expected_version: m.version, idempotency_key: m.freshKey(), ...fields } };
              await r.call(call);
              await r.call(call);
            },
          ),
      ),
    },
    take_back_in_turn: {
      weight: 2 * scale,
      arbitrary: fc.record({ kind: pick({ slides: 1, sheet: 1 }), item: fc.nat(30) }).map(
        ({ kind, item: i }) =>
          new Special(
            `take_back_in_turn ${canonical({ kind, item: i })}`,
            (m) => m.meta !== null && m.members.size > 0,
            async (m, r) => {
              // The same item edited four times; the third taken back, then the second (newest first, so each may be), a
              // fourth edit; the first is refused for the fourth alone (the others cancel out with their reverts), then
              // taken back once the fourth is. Each answer and the content after it, as the model says.
              const update = kind === "slides" ? "slide_update" : "row_update";
              await prepareEdit(m, r, update, false);
              const tab = m.strip.find((x) => x.type === kind && x.slide_count + x.row_count > 1);
              if (tab === undefined) return;
              const items = (kind === "slides" ? m.slides : m.rows).get(tab.id) ?? [];
              const id = (items[i % items.length] as { id: string }).id;
              const member = app(someMember(m));
              const edits: number[] = [];
              const edit = async (n: number) => {
                const fields = kind === "slides" ? { slide_id: id, body: `Edit ${n}` } : { row_id: id, cells: { [tab.columns[0] ?? "Name"]: `edit ${n}` } };
                const answer = await r.call({ caller: member, name: "change_tab", input: { tab_id: tab.id, operation: update, ...fields } });
                edits.push("ok" in answer && answer.ok ? m.version : -1);
              };
              const undo = (version: number) => r.call({ caller: member, name: "undo_change", input: { version, expected_version: m.version } });
              for (const n of [1, 2, 3]) await edit(n);
              if (edits.some((v) => v < 0)) return;
              const [first, second, third] = edits as [number, number, number];
              await undo(third);
              await undo(second);
              await edit(4);
              await undo(first);
              await undo(m.version);
              await undo(first);
            },
          ),
      ),
    },
    stale_item: {
      weight: 2 * scale,
      arbitrary: fc.record({ kind: pick({ slides: 1, sheet: 1 }), item: fc.nat(30) }).map(
        ({ kind, item: i }) =>
          new Special(
            `stale_item ${canonical({ kind, item: i })}`,
            (m) => m.meta !== null && m.members.size > 0,
            async (m, r) => {
              // The agent read the Note; the person deletes the slide or row it means to update. Its update meets a
              // version_conflict whose changes name the deletion; retried with the new version, the item is not found.
              const update = kind === "slides" ? "slide_update" : "row_update";
              await prepareEdit(m, r, update, true);
              const tab = m.strip.find((x) => x.type === kind && x.slide_count + x.row_count > 1);
              if (tab === undefined) return;
              const items = (kind === "slides" ? m.slides : m.rows).get(tab.id) ?? [];
              const gone = (items[i % items.length] as { id: string }).id;
              const member = someMember(m);
              const read = m.version;
              const field = kind === "slides" ? "slide_id" : "row_id";
              await r.call({ caller: app(member), name: "change_tab", input: { tab_id: tab.id, operation: kind === "slides" ? "slide_delete" : "row_delete", [field]: gone } });
              const edit = { tab_id: tab.id, operation: update, [field]: gone, ...(kind === "slides" ? { body: "Too late" } : { cells: { [tab.columns[0] ?? "Name"]: "too late" } }) };
              await r.call({ caller: agent(member), name: "edit_tab", input: { expected_version: read, idempotency_key: m.freshKey(), ...edit } });
              await r.call({ caller: agent(member), name: "edit_tab", input: { expected_version: m.version, idempotency_key: m.freshKey(), ...edit } });
            },
          ),
      ),
    },
    furnish: {
      weight: 4 * scale,
      arbitrary: fc.record({ kind: pick({ slides: 1, sheet: 1 }), tab: fc.nat(30), full: pick({ no: 3, yes: 1 }) }).map(
        ({ kind, tab: t, full }) =>
          new Special(
            `furnish ${canonical({ kind, tab: t, full })}`,
            (m) => m.meta !== null && m.strip.some((x) => x.type === kind),
            async (m, r) => {
              // The person fills a deck or a Sheet (its columns first, when it has none), so that the edits of one item find some.
              const tabs = m.strip.filter((x) => x.type === kind);
              const target = tabs[t % tabs.length] as { id: string; columns: string[] };
              const owner = someMember(m);
              const change = (input: Row) => r.call({ caller: app(owner), name: "change_tab", input: { tab_id: target.id, ...input } });
              if (kind === "slides") return change({ operation: "slides_add_outline", slides: slideList({ count: "3", flaw: "none" }) });
              if (target.columns.length === 0) await change({ operation: "columns_add", columns: ["Name", "Age", "2024"] });
              await change({ operation: "rows_append", rows: rowList("3", target.columns) });
              await readPages(m, r, owner, target.id, 2);
              if (full === "no" || target.columns.length === LIMIT.columns) return;
              // Every column a Sheet takes, then the agent's one more.
              await change({ operation: "columns_add", columns: freshColumns(target.columns, LIMIT.columns - target.columns.length) });
              const more = { expected_version: m.version, idempotency_key: m.freshKey(), tab_id: target.id, operation: "columns_add", columns: freshColumns(target.columns, 1) };
              await r.call({ caller: agent(owner), name: "edit_tab", input: more });
            },
          ),
      ),
    },
    crowd: {
      weight: 2 * scale,
      arbitrary: fc.record({ kind: pick({ slides: 1, sheet: 1 }), tab: fc.nat(30), at: fc.nat(30) }).map(
        ({ kind, tab: t, at }) =>
          new Special(
            `crowd ${canonical({ kind, tab: t, at })}`,
            (m) => m.meta !== null && crowdable(m, kind).length > 0,
            async (m, r) => {
              // The person moves two items in turn right after a third: each move halves the gap after it, until no key is
              // free there and the tab gets fresh keys (src/note/tabs/order.ts).
              const tabs = crowdable(m, kind);
              const tabId = (tabs[t % tabs.length] as { id: string }).id;
              const items = (kind === "slides" ? m.slides : m.rows).get(tabId) ?? [];
              const i = at % (items.length - 2);
              const [anchor, x, y] = [items[i], items[i + 1], items[i + 2]].map((it) => (it as { id: string }).id);
              const owner = someMember(m);
              const rekeys = () => m.rekeys.slides + m.rekeys.rows;
              const before = rekeys();
              for (let move = 0; move < 12; move++) {
                const moving = move % 2 === 0 ? y : x;
                const input = kind === "slides" ? { operation: "slide_move", slide_id: moving } : { operation: "row_move", row_id: moving };
                await r.call({ caller: app(owner), name: "change_tab", input: { tab_id: tabId, ...input, after_id: anchor } });
              }
              if (rekeys() > before) count(r.tally, `rekey ${kind === "slides" ? "slides" : "rows"}`);
            },
          ),
      ),
    },
    fill_sheet: {
      weight: scale,
      arbitrary: fc.record({ tab: fc.nat(30), roll: fc.nat(1) }).map(
        ({ tab: t, roll }) =>
          new Special(
            `fill_sheet ${canonical({ tab: t, roll })}`,
            // Rare: every later step of the history reads ten thousand rows.
            (m) => roll === 0 && m.meta !== null && m.strip.some((x) => x.type === "sheet" && x.columns.length > 0),
            async (m, r) => {
              // A Sheet one row short of its limit, by the person in calls of the most rows one call takes;
              // then the agent's two rows pass the limit, and one fills it.
              const sheets = m.strip.filter((x) => x.type === "sheet" && x.columns.length > 0);
              const sheet = sheets[t % sheets.length] as { id: string; columns: string[]; row_count: number };
              const owner = someMember(m);
              const column = sheet.columns[0] as string;
              const calls: Call[] = [];
              for (let left = LIMIT.rowsPerSheet - 1 - sheet.row_count; left > 0; left -= LIMIT.rowsPerCall) {
                const rows = Array.from({ length: Math.min(left, LIMIT.rowsPerCall) }, (_, i) => ({ [column]: i }));
                calls.push({ caller: app(owner), name: "change_tab", input: { tab_id: sheet.id, operation: "rows_append", rows } });
              }
              if (calls.length > 0) await r.bulk(calls);
              const agentCaller = agent(owner, "unnamed");
              const append = (n: number) => ({ expected_version: m.version, idempotency_key: m.freshKey(), tab_id: sheet.id, operation: "rows_append", rows: Array.from({ length: n }, () => ({ [column]: "last" })) });
              await r.call({ caller: agentCaller, name: "edit_tab", input: append(2) });
              const last = append(1);
              await r.call({ caller: agentCaller, name: "edit_tab", input: last });
              await r.call({ caller: agentCaller, name: "edit_tab", input: last });
              await readPages(m, r, owner, sheet.id, undefined);
              // The person deletes the full Sheet: ten thousand rows gone in one call. The history goes on
              // small, as every later step reads and compares every table.
              await r.call({ caller: app(owner), name: "delete_tab", input: { tab_id: sheet.id } });
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
            async (m, r) => {
              const less = below === "one" ? 1 : 0;
              await r.seedCounters(which === "sources" ? { source_count: LIMIT.sources - less } : { file_count: LIMIT.files - less });
              if (m.members.size === 0) return;
              // Then the counter's limit itself, by a member: with one left, the first fills it and the next is refused.
              const member = someMember(m);
              if (which === "sources" && m.meta?.approved !== true) await r.call({ caller: app(member), name: "set_approval", input: { approved: true } });
              for (let i = 0; i <= less; i++) {
                // A page the Note does not hold yet (one it holds is answered already_attached and counts nothing).
                const page = Object.values(URLS).find((u) => u.url !== null && !m.sources.some((s) => s.normalized_url === u.normalized));
                if (which === "files") await r.call({ caller: app(member), name: "add_file", input: { name: "report.pdf", media_type: "application/pdf", size_bytes: 1234 } });
                else if (page !== undefined) await r.call({ caller: agent(member), name: "add_source", input: { expected_version: m.version, idempotency_key: m.freshKey(), title: "A report", url: page.given } });
              }
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

/** The version a revert names (see `undo_change` in steps): a change of the log picked by `n`, or one it does not hold. */
function undoTarget(choice: string, n: number, m: Model): number {
  const logged = [...m.log.entries()].sort(([a], [b]) => a - b);
  const where = (keep: (entry: Row, version: number) => boolean): number | undefined => at(logged.filter(([v, e]) => keep(e, v)).map(([v]) => v), n);
  const content = (e: Row) => !["create_note", "delete_note", "set_approval", "add_member", "remove_member"].includes(String(e.operation));
  const oldest = m.oldestChange ?? 1;
  const picked = {
    latest: m.version,
    earlier: where((e, v) => content(e) && v < m.version),
    revertible: where((e, v) => content(e) && m.revertible(v)),
    revert: where((e) => e.operation === "revert_change"),
    notContent: where((e) => !content(e)),
    first: 1,
    ahead: m.version + 2,
    pruned: oldest > 1 ? 1 + (n % (oldest - 1)) : m.version + 1,
    largest: Number.MAX_SAFE_INTEGER,
    tooLarge: Number.MAX_SAFE_INTEGER + 1,
    zero: 0,
  }[choice];
  // Not a revert that brings back a Sheet filled to its limit (fill_sheet deletes it again): every later step would compare its rows.
  return picked !== undefined && m.revertSize(picked) <= 50 ? picked : m.version + 1;
}

function write(p: { v: string; key: string | { reuse: number } }, m: Model): Row {
  return { expected_version: { current: m.version, stale: m.version - 1, old: Math.max(1, m.version - 25), future: m.version + 1, zero: 0, fraction: 1.5, missing: undefined }[p.v], idempotency_key: idempotencyKey(p.key, m) };
}

function personalVersion(choice: string, m: Model): number | undefined {
  return { none: undefined, current: m.version, stale: m.version - 1, old: Math.max(1, m.version - 25), future: m.version + 1, zero: 0 }[choice];
}

function idempotencyKey(choice: string | { reuse: number }, m: Model): string | undefined {
  if (typeof choice === "object") return m.usedKeys[choice.reuse % Math.max(1, m.usedKeys.length)] ?? m.freshKey();
  if (choice === "fresh") return m.freshKey();
  if (choice === "max") return m.freshKey().padEnd(LIMIT.key, "=");
  return { empty: "", long: long(LIMIT.key + 1, "k"), nonAscii: "clé-1", control: "tab\tkey", missing: undefined }[choice];
}

type TabRef = string | { deck: number } | { sheet: number } | { made: number } | { strip: number } | { label: number };
const at = <T>(list: readonly T[], i: number): T | undefined => list[i % Math.max(1, list.length)];

/** A tab ID as a caller might send it: a deck's or a Sheet's, one handed out (perhaps deleted since), a fixed one, a type, a label, or none. */
function tabId(ref: TabRef, m: Model): string | undefined {
  if (typeof ref === "object") {
    if ("deck" in ref) return at(m.strip.filter((t) => t.type === "slides"), ref.deck)?.id ?? at(m.seenTabIds, ref.deck) ?? "slides-1-0";
    if ("sheet" in ref) return at(m.strip.filter((t) => t.type === "sheet"), ref.sheet)?.id ?? at(m.seenTabIds, ref.sheet) ?? "sheet-1-0";
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

// ---- edits of a tab's content ------------------------------------------------------

type ItemRef = string | { own: number } | { other: number } | { seen: number };
interface EditParams {
  operation: string;
  tab: { fit: number } | TabRef;
  item: ItemRef;
  after: string | { own: number };
  title: string;
  slides: { count: string; flaw: string };
  update: string;
  rows: string;
  cells: string;
  columns: string;
}

/**
 * An agent or the person reads the change log a page at a time from a
 * version, passing next_since_version back until it is null (each page is
 * checked against the model as it comes); then the pages must join into the
 * whole log after that version: every entry once, in order, to the Note's
 * version, each page's next_since_version its own last entry's.
 */
async function pageChanges(m: Model, r: Run, p: { by: string; limit: string; from: string }): Promise<void> {
  const member = someMember(m);
  const caller = p.by === "agent" && m.meta?.approved === true ? agent(member, "inspector") : app(member);
  let limit = { one: 1, two: 2, three: 3, default: undefined, max: LIMIT.changesPage }[p.limit];
  let size = limit ?? LIMIT.changesPageDefault;
  const oldest = m.oldestChange ?? 1;
  let from = { zero: 0, recent: Math.max(0, m.version - 10), beforeOldest: Math.max(0, oldest - 7) }[p.from] as number;
  // At most 15 pages: the largest pages for a long log, and past that a later start.
  if (m.version - from > 15 * size) [limit, size] = [LIMIT.changesPage, LIMIT.changesPage];
  from = Math.max(from, m.version - 15 * size);
  const whole = m.changesAfter(from).map((c): Row => ({ ...c, revertible: m.revertible(c.version as number) }));
  const pages: Row[] = [];
  for (let since: number | null = from; since !== null; ) {
    if (pages.length > 16) r.fail("list_changes pages on past the whole log", [`${pages.length} pages from ${from}`]);
    const answer = await r.call({ caller, name: "list_changes", input: compact({ since_version: since, limit }) });
    if (!("ok" in answer) || !answer.ok) return;
    pages.push(answer.value);
    since = answer.value.next_since_version as number | null;
  }
  const joined = pages.flatMap((page) => page.changes as Row[]);
  const versions = joined.map((c) => Number(c.version));
  const first = Math.max(from + 1, oldest);
  const problems: string[] = [];
  if (canonical(joined) !== canonical(whole)) problems.push(`the pages hold versions ${show(versions)}, the log after ${from} ${show(whole.map((c) => c.version))}`);
  if (versions.some((v, i) => v !== first + i) || (m.version > from && versions.at(-1) !== m.version)) problems.push(`versions ${show(versions)} are not ${first} to ${m.version} one after another`);
  pages.forEach((page, i) => {
    const last = (page.changes as Row[]).at(-1)?.version ?? null;
    const next = i === pages.length - 1 ? null : last;
    if (page.next_since_version !== next) problems.push(`page ${i + 1} says next_since_version ${show(page.next_since_version)}, its last entry is ${show(last)}`);
  });
  if (problems.length > 0) r.fail(`list_changes from ${from} in pages of ${size}, but`, problems);
  count(r.tally, `list_changes: paged ${pages.length > 1 ? "several pages" : "one page"}`);
  if (from < oldest - 1) count(r.tally, "list_changes: paged a pruned log");
}

/**
 * Makes the Note ready for a sound edit, by a member: approved (for an
 * agent's), with a tab of the edit's kind, and (for an edit of one item) a tab
 * of that kind with two items or more. Each call is checked as any other.
 */
async function prepareEdit(m: Model, r: Run, operation: string, byAgent: boolean): Promise<void> {
  const member = app(someMember(m));
  const kind = operation.startsWith("slide") ? "slides" : "sheet";
  const tabs = () => m.strip.filter((x) => x.type === kind);
  if (byAgent && m.meta?.approved !== true) await r.call({ caller: member, name: "set_approval", input: { approved: true } });
  if (tabs().length === 0) await r.call({ caller: member, name: "add_tab", input: { tab_type: kind } });
  const target = tabs()[0];
  if (target === undefined || !/_(update|delete|move)$/.test(operation) || tabs().some((x) => x.slide_count + x.row_count > 1)) return;
  const change = (input: Row) => r.call({ caller: member, name: "change_tab", input: { tab_id: target.id, ...input } });
  if (kind === "slides") return void (await change({ operation: "slides_add_outline", slides: slideList({ count: "3", flaw: "none" }) }));
  if (target.columns.length === 0) await change({ operation: "columns_add", columns: ["Name", "Age", "2024"] });
  await change({ operation: "rows_append", rows: rowList("3", target.columns) });
}

/** The agent reads a deck's or a Sheet's first page, and the next one when there is one. */
async function readPages(m: Model, r: Run, user: string, tabId: string, limit: number | undefined): Promise<void> {
  const read = (cursor?: string) => r.call({ caller: agent(user), name: "read_tab", input: compact({ tab_id: tabId, limit, cursor }) });
  const before = m.cursors.length;
  await read();
  const next = m.cursors.length > before ? m.cursors.at(-1) : undefined;
  if (next !== undefined) await read(next.cursor);
}

/** The tabs whose items the crowd step can move: three or more in a tab of the kind. */
function crowdable(m: Readonly<Model>, kind: string): { id: string }[] {
  return m.strip.filter((t) => t.type === kind && (kind === "slides" ? t.slide_count : t.row_count) >= 3);
}

/** An edit's own fields (all but the version and the key) as a caller might send them, resolved against the Note as it stands. */
function editInput(p: EditParams, m: Model): Row {
  const slideOp = p.operation.startsWith("slide");
  const kind = slideOp ? "slides" : "sheet";
  // An edit of one item goes mostly to a tab that has some; an append or a new column, to any tab of its kind.
  const fits = m.strip.filter((t) => t.type === kind);
  const filled = /_(update|delete|move)$/.test(p.operation) ? fits.filter((t) => t.slide_count + t.row_count > 0) : [];
  const tab_id = typeof p.tab === "object" && "fit" in p.tab ? (at(filled.length > 0 ? filled : fits, p.tab.fit)?.id ?? at(m.seenTabIds, p.tab.fit) ?? `${kind}-1-0`) : tabId(p.tab, m);
  const tab = m.strip.find((t) => t.id === tab_id);
  const own: { id: string; title?: string; cells?: Row }[] = (slideOp ? m.slides : m.rows).get(String(tab_id)) ?? [];
  const id = (ref: ItemRef): unknown => itemRef(ref, slideOp, String(tab_id), own, m);
  const columns = tab?.columns ?? [];
  const base = { tab_id, operation: p.operation === "missing" ? undefined : p.operation };
  const title = p.title === "max" ? long(LIMIT.slideTitle) : p.title === "over" ? long(LIMIT.slideTitle + 1) : TITLES[p.title];
  const itemField = slideOp ? "slide_id" : "row_id";
  switch (p.operation) {
    case "slide_add":
      return { ...base, title, body: "Added" };
    case "slides_add_outline":
      return { ...base, slides: slideList(p.slides) };
    case "both":
      return { ...base, operation: "slide_add", title, slides: slideList(p.slides) };
    case "slide_update": {
      const slide = own.find((s) => s.id === id(p.item)) ?? own[0];
      const fields: Record<string, Row> = {
        body: { body: "Corrected" },
        title: { title: "Corrected title" },
        all: { title: "All new", body: "b", notes: "n" },
        same: { title: slide?.title ?? "Slide 1" },
        none: {},
        blankTitle: { title: "  " },
        overBody: { body: long(LIMIT.slideText + 1, "b") },
        padded: { title: "  Padded again  " },
      };
      return { ...base, slide_id: id(p.item), ...fields[p.update] };
    }
    case "slide_delete":
    case "row_delete":
      return { ...base, [itemField]: id(p.item) };
    case "slide_move":
    case "row_move": {
      const after =
        typeof p.after === "object"
          ? (at(own, p.after.own)?.id ?? "first")
          : { first: null, self: id(p.item), unknown: slideOp ? "slide-999-zz" : "row-999-zz", missing: undefined, number: 0, other: itemRef({ other: 0 }, slideOp, String(tab_id), own, m) }[p.after];
      return { ...base, [itemField]: id(p.item), after_id: after === "first" ? null : after };
    }
    case "rows_append":
      return { ...base, rows: rowList(p.rows, columns) };
    case "row_update": {
      const row = own.find((r) => r.id === id(p.item)) ?? own[0];
      return { ...base, row_id: id(p.item), cells: cellsFor(p.cells, columns, row?.cells ?? {}) };
    }
    case "columns_add":
      return { ...base, columns: columnsToAdd(p.columns, columns) };
    default:
      // An operation no one may run (slides_add), or the person's own (slide_move) sent by the agent.
      return { ...base, title };
  }
}

/** A slide's or a row's ID as a caller might send it (see `item` in steps). */
function itemRef(ref: ItemRef, slides: boolean, tabId: string, own: readonly { id: string; title?: string }[], m: Model): unknown {
  const items = slides ? m.slides : m.rows;
  if (typeof ref === "object") {
    const seen = [...(slides ? m.seenSlideIds : m.seenRowIds)];
    // With no such item yet, an ID no item has.
    const none = slides ? "slide-404-zz" : "row-404-zz";
    if ("own" in ref) return at(own, ref.own)?.id ?? at(seen, ref.own) ?? none;
    if ("other" in ref) return at([...items].filter(([id]) => id !== tabId).flatMap(([, list]) => list.map((it) => it.id)), ref.other) ?? at(seen, ref.other) ?? none;
    return at(seen, ref.seen) ?? none;
  }
  const other = [...(slides ? m.seenRowIds : m.seenSlideIds)][0];
  return { index: "2", title: own[0]?.title ?? "Slide 1", number: 2, otherKind: other ?? (slides ? "row-1-0" : "slide-1-0"), unknown: slides ? "slide-404-zz" : "row-404-zz", missing: undefined }[ref];
}

/** Column names no Sheet has yet, `count` of them after `existing`. */
function freshColumns(existing: readonly string[], count: number): string[] {
  const names: string[] = [];
  for (let n = existing.length + 1; names.length < count; n++) if (!existing.includes(`Col ${n}`)) names.push(`Col ${n}`);
  return names;
}

/** create_tab's columns: three, the most a Sheet takes, one more, a name twice, a blank one. */
function createColumns(choice: string): string[] | undefined {
  return { none: undefined, three: ["Name", "Age", "2024"], max: freshColumns([], LIMIT.columns), over: freshColumns([], LIMIT.columns + 1), twice: ["Name", "Name"], blank: [" "] }[choice];
}

/** columns_add's columns, given the Sheet's (see `content.columns` in steps). */
function columnsToAdd(choice: string, existing: readonly string[]): string[] | undefined {
  const left = LIMIT.columns - existing.length;
  return {
    one: freshColumns(existing, 1),
    two: freshColumns(existing, 2),
    numeric: existing.includes("7") ? ["8"] : ["7"],
    existing: [existing[0] ?? "Name"],
    twice: ["Same", "Same"],
    blank: ["  "],
    padded: [" Padded "],
    proto: ["__proto__"],
    // The Sheet's last columns (one more past a full Sheet), and one more than it takes.
    fill: freshColumns(existing, Math.max(1, left)),
    over: freshColumns(existing, Math.min(LIMIT.columns, left + 1)),
    zero: [],
  }[choice];
}

/** Rows to append or create with, in a Sheet of these columns (see `content.rows` in steps). */
function rowList(choice: string, columns: readonly string[]): Row[] | undefined {
  const [a = "Name", b = a, c = b] = columns;
  const row = (i: number): Row => ({ [a]: `Row ${i}`, [b]: i, [c]: i + 0.5 });
  const n = Number(choice);
  if (Number.isInteger(n)) return Array.from({ length: n }, (_, i) => (n > 3 ? { [a]: i } : row(i)));
  return {
    // Every column at its most characters: eleven such rows of a Sheet of fifty columns pass what one page of rows carries.
    wide: Array.from({ length: 11 }, () => Object.fromEntries(columns.map((name) => [name, long(LIMIT.cell, "w")]))),
    unknownColumn: [row(1), { Nope: 1 }],
    emptyRow: [row(1), {}],
    zero: [],
    missing: undefined,
  }[choice];
}

/** row_update's cells, given the Sheet's columns and the row's cells (see `content.cells` in steps). */
function cellsFor(choice: string, columns: readonly string[], cells: Row): Row | undefined {
  const [a = "Name", b = a] = columns;
  const first = Object.keys(cells)[0];
  return {
    one: { [a]: "changed" },
    two: { [a]: 7, [b]: "two" },
    clear: { [first ?? a]: null },
    same: first === undefined ? { [a]: null } : { [first]: cells[first] },
    unknownColumn: { Nope: 1 },
    empty: {},
    overCell: { [a]: long(LIMIT.cell + 1, "c") },
    maxCell: { [a]: long(LIMIT.cell, "c") },
    badValue: { [a]: true },
    infinite: { [a]: Number.POSITIVE_INFINITY },
    missing: undefined,
  }[choice];
}

/**
 * A page of the log says of each entry whether it can be taken back now
 * (src/note/undo.ts): the model predicts it (NoteModel.revertible) and the page is
 * compared with its own; here, besides, false for every change that is not content.
 */
function checkRevertible(call: Call, answer: Answer, run: { fail(what: string, problems: string[]): never }): Answer {
  if (call.name !== "list_changes" || !("ok" in answer) || !answer.ok) return answer;
  for (const entry of answer.value.changes as Row[]) {
    if (entry.revertible === true && ["create_note", "delete_note", "set_approval", "add_member", "remove_member"].includes(String(entry.operation))) {
      run.fail("list_changes: a change that is not content is revertible", [show(entry)]);
    }
  }
  return answer;
}
