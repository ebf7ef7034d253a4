/**
 * The in-process answer to a script's steps: the domain itself. Each agent
 * step runs the tool's Note operation (the command `src/mcp/tools.ts` wires
 * it to) with the note ID taken off, as the MCP server does; each person's
 * step runs the app's operation. The Note validates every argument itself, so
 * skipping the zod edge here changes no answer (`--live` goes through the
 * edge, and test/unit/sim.test.ts parses every request of the experiments with
 * the tools' input schemas).
 */
import type { Caller, CommandName, Input } from "../src/note/commands.js";
import { MemoryNoteStore } from "../src/note/memory-store.js";
import { Note } from "../src/note/note.js";
import type { Result } from "../src/note/result.js";
import { TOOLS_BY_NAME } from "../src/mcp/tools.js";
import { IN_PROCESS_TAG, type AgentTool, type PersonAction, type PlayedServer, type Reply, type Script, type Step, type Unit } from "./script.js";

export const USER = "alice";
/** The agent, with an OAuth client as the MCP route sets it, so the change log names it an agent (with --live, the local sign-in's client, "Local script"). */
export const AGENT: Caller = { user: USER, channel: "connector", client: { id: "sim-agent", name: "Local script" } };
export const APP: Caller = { user: USER, channel: "app" };

/** The simulated clock starts here (Monday 5 January 2026, 09:00 UTC) and ticks 1 ms per step. */
export const EPOCH_MS = Date.UTC(2026, 0, 5, 9, 0, 0);

const COMMANDS: ReadonlyMap<AgentTool, CommandName> = new Map(
  (["list_note_tabs", "read_note_tab", "create_note_tab", "edit_note_tab", "add_note_source", "list_note_attachments"] as const).map((tool) => {
    const command = TOOLS_BY_NAME.get(tool)?.command;
    if (command === undefined || command === null) throw new Error(`the tool ${tool} runs no Note operation`);
    return [tool, command];
  }),
);

/** The agent's writes: each carries `expected_version` and `idempotency_key`. */
const KEYED_TOOLS: ReadonlySet<AgentTool> = new Set(["create_note_tab", "edit_note_tab", "add_note_source"]);

/**
 * The key a version-first server's version check runs under: one no call
 * ever records (a refused write records nothing), so the Note passes it to
 * its version check, which then answers as that server would.
 */
const VERSION_PROBE_KEY = "sim-version-first-probe";

/**
 * Notes by ID, all in memory, answered by this server's rules, or by a server
 * the simulation plays beside them (`server`): "version-first" checks a
 * write's `expected_version` before it calls the Note, so a stale resend meets
 * a conflict before the Note can look its key up.
 */
export class World {
  readonly #notes = new Map<string, { note: Note; store: MemoryNoteStore }>();
  readonly #server: PlayedServer | undefined;
  #clock = EPOCH_MS;

  constructor(server?: PlayedServer) {
    this.#server = server;
  }

  /** Runs a script to its end and returns what it returns. */
  run<T>(script: Script<T>): T {
    let next = script.next();
    while (next.done !== true) next = script.next(this.answer(next.value));
    return next.value;
  }

  answer(step: Step): Reply {
    this.#clock += 1;
    if (step.kind === "person") return this.#person(step.action);
    const { note_id, ...input } = step.args as { note_id: string } & Record<string, unknown>;
    const command = COMMANDS.get(step.tool);
    if (command === undefined) throw new Error(`no command for ${step.tool}`);
    if (this.#server === "version-first" && KEYED_TOOLS.has(step.tool)) {
      return this.#execute(note_id, (note, store) => {
        // The version check, before the Note sees the key: this thread is the only one at the Note, so nothing commits between the two.
        const stale = input.expected_version !== store.readMeta()?.version;
        // A stale write goes to the Note under a key nothing recorded: the Note's own version check answers it, as this server's would.
        const sent = stale ? { ...input, idempotency_key: VERSION_PROBE_KEY } : input;
        return note.execute(AGENT, command, sent as Input<typeof command>);
      }) as Reply;
    }
    return this.#execute(note_id, (note) => note.execute(AGENT, command, input as Input<typeof command>)) as Reply;
  }

  #person(action: PersonAction): Reply {
    return this.#execute(action.note_id, (note) => this.#personOn(note, action)) as Reply;
  }

  #personOn(note: Note, action: PersonAction): Result<unknown> {
    return action.op === "create_note"
        ? note.execute(APP, "create_note", { title: action.title })
        : action.op === "approve"
          ? note.execute(APP, "set_approval", { approved: true })
          : action.op === "rename_tab"
            ? note.execute(APP, "rename_tab", { tab_id: action.tab_id, label: action.label })
            : note.execute(APP, "set_markdown", { text: action.text });
  }

  /**
   * Runs one operation on the Note with this ID (like `idFromName`, any ID
   * names one, empty until created), then takes the changes it committed, as
   * the Note's Durable Object does after each operation, so none pile up.
   */
  #execute(noteId: string, operation: (note: Note, store: MemoryNoteStore) => Result<unknown>): Result<unknown> {
    let held = this.#notes.get(noteId);
    if (held === undefined) {
      const store = new MemoryNoteStore();
      held = { note: new Note(noteId, store, { now: () => this.#clock }), store };
      this.#notes.set(noteId, held);
    }
    const result = operation(held.note, held.store);
    held.store.takeCommittedChanges();
    return result;
  }
}

/** Runs one unit in a world of its own. */
export function runInProcess<R>(unit: Unit<R>, tag: string = IN_PROCESS_TAG): R {
  return new World(unit.server).run(unit.script(tag));
}
