/**
 * Writes under load that all commit. A write must carry the Note's current
 * version and a fresh idempotency key, so each connection gets a lane of its
 * own: the Notes (or Slides tabs) only it writes to, one call in flight at a
 * time, the version read from each answer (`onResponse`) and sent with the
 * next call. A lane moves to its next target when one is full (100 tabs per
 * Note, 500 slides per tab, 10,000 rows per Sheet), or rotates over its
 * targets (`rotate`).
 */
import type autocannon from "autocannon";
import { callTool, isCommittedWrite, MCP_PATH, mcpHeaders, toolCallBody, versionIn } from "./mcp-call.js";

export interface WriteTarget {
  noteId: string;
  /** The Slides tab or Sheet written to, for slide_add, slide_update and rows_append. */
  tabId?: string;
  /** The slide written to, for slide_update. */
  itemId?: string;
  /** Committed calls this target can still take before a limit refuses them. */
  left: number;
}

export interface Lane {
  targets: WriteTarget[];
  /** Index of the target in use (sequential) or the next one (rotating). */
  at: number;
}

/** The tool call a lane sends to `target` at `version`. */
export type BuildCall = (target: WriteTarget, version: number, key: string) => { tool: string; args: Record<string, unknown> };

interface TabsView {
  version: number;
  tabs: { id: string; type: string; slide_count?: number; row_count?: number }[];
}

export class WriteLanes {
  /** Each Note's version as last answered. */
  readonly versions = new Map<string, number>();
  readonly lanes: Lane[] = [];
  #runs = 0;

  constructor(
    /** Prefix of every idempotency key, unique to this workload. */
    readonly name: string,
    readonly build: BuildCall,
    /** Calls `target` can take, from the Note as list_note_tabs shows it. */
    readonly capacity: (target: WriteTarget, view: TabsView) => number,
    /** Rotate over a lane's targets on every call instead of filling one after another. */
    readonly rotate = false,
  ) {}

  addLane(): Lane {
    const lane: Lane = { targets: [], at: 0 };
    this.lanes.push(lane);
    return lane;
  }

  /** What all lanes can still take. */
  left(): number {
    return this.lanes.reduce((sum, lane) => sum + lane.targets.reduce((s, t) => s + Math.max(0, t.left), 0), 0);
  }

  /**
   * The request for one autocannon run with `lanes.length` connections:
   * connection i takes lane i for the run.
   */
  request(token: string): autocannon.Request {
    const run = this.#runs++;
    let nextLane = 0;
    let seq = 0;
    const headers = mcpHeaders(token);
    return {
      method: "POST",
      path: MCP_PATH,
      headers,
      // Cloned per connection by autocannon: the connection's own record of its lane.
      slot: { lane: -1 },
      setupRequest: (request, context) => {
        const slot = request.slot as { lane: number };
        if (slot.lane < 0) slot.lane = nextLane++;
        const lane = this.lanes[slot.lane];
        if (lane === undefined) throw new Error(`${this.name}: more connections than lanes`);
        const target = this.#pick(lane);
        context.target = target;
        const version = this.versions.get(target.noteId) ?? 1;
        const call = this.build(target, version, `${this.name}-r${run}-l${slot.lane}-${seq++}`);
        request.body = toolCallBody(call.tool, call.args);
        return request;
      },
      onResponse: (status, body, context) => {
        const target = context.target as WriteTarget | undefined;
        if (target === undefined) return;
        const version = versionIn(body);
        if (version !== null) this.versions.set(target.noteId, version);
        if (status === 200 && isCommittedWrite(body)) target.left -= 1;
      },
    };
  }

  /**
   * Reads every Note's version and what its targets can still take, after a
   * run whose last calls may have committed without the client seeing the answer.
   */
  async resync(origin: string, token: string): Promise<void> {
    const notes = new Set(this.lanes.flatMap((lane) => lane.targets.map((t) => t.noteId)));
    const views = new Map<string, TabsView>();
    for (const noteId of notes) views.set(noteId, await callTool<TabsView>(origin, token, "list_note_tabs", { note_id: noteId }));
    for (const [noteId, view] of views) this.versions.set(noteId, view.version);
    for (const lane of this.lanes) {
      for (const target of lane.targets) {
        const view = views.get(target.noteId);
        if (view !== undefined) target.left = this.capacity(target, view);
      }
    }
  }

  #pick(lane: Lane): WriteTarget {
    const n = lane.targets.length;
    if (n === 0) throw new Error(`${this.name}: a lane without targets`);
    if (this.rotate) {
      for (let k = 0; k < n; k++) {
        const index = (lane.at + k) % n;
        const target = lane.targets[index] as WriteTarget;
        if (target.left > 0) {
          lane.at = (index + 1) % n;
          return target;
        }
      }
      return lane.targets[lane.at] as WriteTarget; // all full: the refusal will show as an error
    }
    while (lane.at < n - 1 && (lane.targets[lane.at] as WriteTarget).left <= 0) lane.at += 1;
    return lane.targets[lane.at] as WriteTarget;
  }
}
