/**
 * `npm run sim -- --live URL`: experiments 3, 4 and 5 sent through a running
 * connector. The agent's steps go through the official MCP client
 * (`@modelcontextprotocol/client` over Streamable HTTP, a bearer token from
 * the local sign-in); the person's steps go through
 * the person's API. The scripts are the in-process ones, drawing the same
 * random events in the same order, so the figures must agree with an
 * in-process run at the same seed and trials. A lost response is an answer
 * the client received and discarded. Units on a server the simulation plays
 * (version before key) run in process: no deployment is that server.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { PersonApi } from "../scripts/lib/person-api.js";
import { pool } from "../scripts/lib/pool.js";
import { signIn } from "../scripts/lib/sign-in.js";
import { assemble, collect, jobsOf, makePlan, runJob, type ExperimentNumber, type Ran, type Results } from "./experiments.js";
import type { HandlesTally } from "./handles.js";
import type { RevertTally } from "./revert.js";
import { runInProcess, USER } from "./in-process.js";
import type { PersonAction, Reply, Script, Step, ToolError, Unit } from "./script.js";
import type { Settings } from "./settings.js";

export interface LiveOptions {
  /** The connector's origin, e.g. http://127.0.0.1:8787. */
  origin: string;
  settings: Settings;
  only: ReadonlySet<ExperimentNumber>;
  /** Units in flight at once (each unit uses its own Notes). */
  concurrency?: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /** The eight-character tag in this run's Note IDs; random by default, so a run never meets an earlier one's Notes. */
  tag?: string;
}

/** Runs the chosen experiments: 3, 4, 5 (and 6) against the server; 1, 2 and 7 (and the units on a played server) in process. */
export async function runLive(options: LiveOptions): Promise<Results> {
  const { origin, settings, only, concurrency = 8, log = () => {} } = options;
  const tag = options.tag ?? randomTag();
  log(`live: signing in as ${USER} at ${origin}`);
  const [agentTokens, appTokens] = await Promise.all([
    signIn({ origin, user: USER, scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" }),
    signIn({ origin, user: USER, scopes: ["osfoundry:app"], resource: "api" }),
  ]).catch((error: unknown) => {
    const why = error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error);
    throw new LiveSetupError(`could not sign in at ${origin}: ${why}. Is the connector running there (npm start)?`, { cause: error });
  });
  const client = new Client({ name: "notes-connector-sim", version: "0.1.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: { token: async () => agentTokens.access_token } }));
  const world = new LiveWorld(client, new PersonApi({ origin, token: appTokens.access_token }));
  try {
    const plan = makePlan(settings, only);
    const jobs = jobsOf(plan);
    const outputs: (HandlesTally | RevertTally | Ran<unknown>)[] = new Array(jobs.length);
    const live: number[] = [];
    jobs.forEach((job, i) => {
      // Experiments 1, 2 and 7 run in process only (experiment 7 drives the Note directly, as 1 does).
      if (job.experiment === "handles" || job.experiment === "revert") {
        outputs[i] = runJob(plan, job);
        return;
      }
      const unit = plan[job.experiment]?.units[job.index] as Unit<unknown> | undefined;
      if (unit === undefined) throw new Error(`no unit ${job.index} of ${job.experiment}`);
      if (unit.server !== undefined) outputs[i] = { figures: runInProcess(unit), source: "in process (version first)" };
      else live.push(i);
    });
    log(`live: ${live.length} units through ${origin}/mcp, ${concurrency} at a time (Note IDs tagged ${tag})`);
    const started = Date.now();
    let done = 0;
    await pool(live, concurrency, async (i) => {
      const job = jobs[i];
      const unit = job === undefined || job.experiment === "handles" || job.experiment === "revert" ? undefined : (plan[job.experiment]?.units[job.index] as Unit<unknown> | undefined);
      if (unit === undefined) throw new Error(`no unit for job ${i}`);
      outputs[i] = { figures: await world.run(unit.script(tag)), source: "live" };
      done += 1;
      if (done % 100 === 0 || done === live.length) log(`live: ${done}/${live.length} units, ${world.calls} tool calls, ${((Date.now() - started) / 1000).toFixed(1)} s`);
    });
    return assemble(plan, collect(jobs, outputs));
  } finally {
    await client.close();
  }
}

/** The connector could not be reached or signed in to: a message for the person, not a stack. */
export class LiveSetupError extends Error {
  override name = "LiveSetupError";
}

/** The steps of scripts answered by a running connector. */
class LiveWorld {
  calls = 0;

  constructor(
    readonly client: Client,
    readonly api: PersonApi,
  ) {}

  async run<T>(script: Script<T>): Promise<T> {
    let next = script.next();
    while (next.done !== true) next = script.next(await this.answer(next.value));
    return next.value;
  }

  async answer(step: Step): Promise<Reply> {
    if (step.kind === "person") return this.#person(step.action);
    this.calls += 1;
    const result = await this.client.callTool({ name: step.tool, arguments: step.args });
    if (result.isError === true) return { ok: false, error: toolError(result.content) };
    if (result.structuredContent === undefined) throw new Error(`${step.tool} answered without structuredContent`);
    return { ok: true, value: result.structuredContent };
  }

  /** The person's answer is a reply as it stands: the output, or the `{error}` the server refused with. */
  #person(action: PersonAction): Promise<Reply> {
    switch (action.op) {
      case "create_note":
        return this.api.createNote({ note_id: action.note_id, title: action.title });
      case "approve":
        return this.api.setApproval(action.note_id, { approved: true });
      case "save_markdown":
        return this.api.setMarkdown(action.note_id, { text: action.text });
      case "rename_tab":
        return this.#renameTab(action.note_id, action.tab_id, action.label);
    }
  }

  /** `PATCH /notes/:id/tabs/:tab` with a label (the person's API has no typed call for it): the person renames a tab. */
  async #renameTab(noteId: string, tabId: string, label: string): Promise<Reply> {
    const { status, body } = await this.api.request("PATCH", `/notes/${encodeURIComponent(noteId)}/tabs/${encodeURIComponent(tabId)}`, { label });
    if (status >= 200 && status < 300) return { ok: true, value: body };
    const error = (body as { error?: ToolError } | null)?.error;
    return { ok: false, error: error ?? { code: "unparsed_error", message: `HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}` } };
  }
}

/** The `{error}` of an `isError` tool result's JSON text. */
function toolError(content: unknown): ToolError {
  const first = Array.isArray(content) ? (content[0] as { type?: unknown; text?: unknown } | undefined) : undefined;
  if (first?.type === "text" && typeof first.text === "string") {
    try {
      const parsed = JSON.parse(first.text) as { error?: ToolError };
      if (parsed.error !== undefined && typeof parsed.error.code === "string") return parsed.error;
    } catch {
      // Not our JSON: reported below.
    }
  }
  return { code: "unparsed_error", message: JSON.stringify(content).slice(0, 300) };
}

/** Eight random lower-case letters and digits. */
function randomTag(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => alphabet[b % alphabet.length]).join("");
}
