/**
 * The one client of the person's API (`/api/v1`, docs/api.md) for scripts,
 * the bench, the sim and the tests. Web APIs only and any `fetch`, so it runs
 * in Node against `wrangler dev` and inside workerd through the Worker's own
 * `exports.default.fetch`.
 *
 * @example
 * const api = new PersonApi({ origin: "http://127.0.0.1:8787", token });
 * const created = orThrow(await api.createNote({ note_id: "plan", title: "Plan" }), "create the Note");
 * const answer = await api.request("POST", "/notes/plan/tabs", { tab_type: "slides", position: 99 }); // any status, as it came
 */
import type { Input, Output, TabSummary } from "../../src/note/commands.js";

/** How the client reaches the server: Node's global fetch, or a Worker's own. */
export type Fetch = (request: Request) => Promise<Response>;

export interface PersonApiOptions {
  /** The connector's origin, e.g. http://127.0.0.1:8787. */
  origin: string;
  /** An access token for the resource `/api/v1` with the scope `osfoundry:app`. */
  token: string;
  /** The global fetch by default. */
  fetch?: Fetch;
  /** Abort a request after this many milliseconds; no limit by default. */
  timeoutMs?: number;
}

/** An answer as it came: the status, and the body parsed when it is JSON (else its text). */
export interface ApiResponse {
  status: number;
  body: unknown;
}

/** The `{error}` of a refused request (docs/api.md, "Errors"). */
export interface ApiError {
  code: string;
  message: string;
  [detail: string]: unknown;
}

/** A typed answer: the operation's output, or the error the server refused it with. */
export type ApiResult<T> = { ok: true; status: number; value: T } | { ok: false; status: number; error: ApiError };

/** The server answered something that is neither the operation's output nor an `{error}`. */
export class PersonApiError extends Error {
  override name = "PersonApiError";
}

export class PersonApi {
  readonly origin: string;
  readonly #token: string;
  readonly #fetch: Fetch;
  readonly #timeoutMs: number | undefined;

  constructor(options: PersonApiOptions) {
    this.origin = options.origin.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#timeoutMs = options.timeoutMs;
  }

  /** Any request under /api/v1, whatever it answers: for tests that send bad input on purpose. */
  async request(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const init: RequestInit = { method, headers: { Authorization: `Bearer ${this.#token}`, "Content-Type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (this.#timeoutMs !== undefined) init.signal = AbortSignal.timeout(this.#timeoutMs);
    const response = await this.#fetch(new Request(`${this.origin}/api/v1${path}`, init));
    const text = await response.text();
    if (!(response.headers.get("Content-Type") ?? "").includes("json")) return { status: response.status, body: text };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      throw new PersonApiError(`${method} /api/v1${path}: HTTP ${response.status} with a JSON type and a body that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  /** `POST /notes`: the caller owns the new Note (version 1, not approved); 409 `note_exists` if the ID is taken. */
  createNote(input: Input<"create_note"> & { note_id?: string }): Promise<ApiResult<Output<"create_note">>> {
    return this.#call("POST", "/notes", input);
  }

  /** `PATCH /notes/:id`: renames the Note; every member's list shows the new title. */
  renameNote(noteId: string, input: Input<"rename_note">): Promise<ApiResult<Output<"rename_note">>> {
    return this.#call("PATCH", `/notes/${encodeURIComponent(noteId)}`, input);
  }

  /** `DELETE /notes/:id`: deletes the Note for every member; its storage is erased. */
  deleteNote(noteId: string, input: Input<"delete_note"> = {}): Promise<ApiResult<Output<"delete_note">>> {
    return this.#call("DELETE", `/notes/${encodeURIComponent(noteId)}`, input);
  }

  /** `PUT /notes/:id/approval`: approves the Note for connectors, or revokes it. */
  setApproval(noteId: string, input: Input<"set_approval">): Promise<ApiResult<Output<"set_approval">>> {
    return this.#call("PUT", `/notes/${encodeURIComponent(noteId)}/approval`, input);
  }

  /** `POST /notes/:id/tabs`: a Slides or Sheet tab; the answer carries it. */
  addTab(noteId: string, input: Input<"add_tab">): Promise<ApiResult<Output<"add_tab"> & { tab: TabSummary }>> {
    return this.#call("POST", `/notes/${encodeURIComponent(noteId)}/tabs`, input);
  }

  /** `PUT /notes/:id/tabs/:tab/slides`: replaces a deck's slides. */
  setSlides(noteId: string, tabId: string, input: Omit<Input<"set_slides">, "tab_id">): Promise<ApiResult<Output<"set_slides">>> {
    return this.#call("PUT", `/notes/${encodeURIComponent(noteId)}/tabs/${encodeURIComponent(tabId)}/slides`, input);
  }

  /** `PUT /notes/:id/markdown`: sets the Markdown tab's text. */
  setMarkdown(noteId: string, input: Input<"set_markdown">): Promise<ApiResult<Output<"set_markdown">>> {
    return this.#call("PUT", `/notes/${encodeURIComponent(noteId)}/markdown`, input);
  }

  /** Creates a Note and approves it for connectors; returns its version (2). Throws if either step is refused. */
  async createApprovedNote(noteId: string, title = noteId): Promise<number> {
    orThrow(await this.createNote({ note_id: noteId, title }), `create Note ${noteId}`);
    return orThrow(await this.setApproval(noteId, { approved: true }), `approve Note ${noteId}`).version;
  }

  async #call<T>(method: string, path: string, body: unknown): Promise<ApiResult<T>> {
    const { status, body: answer } = await this.request(method, path, body);
    if (status >= 200 && status < 300 && typeof answer === "object" && answer !== null) return { ok: true, status, value: answer as T };
    const error = (answer as { error?: Partial<ApiError> } | null)?.error;
    if (status >= 400 && typeof error?.code === "string") return { ok: false, status, error: error as ApiError };
    throw new PersonApiError(`${method} /api/v1${path}: HTTP ${status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
}

/** The output of a request that must succeed; a refusal throws with `what` and the server's error. */
export function orThrow<T>(result: ApiResult<T>, what: string): T {
  if (result.ok) return result.value;
  throw new PersonApiError(`could not ${what}: HTTP ${result.status} ${JSON.stringify(result.error)}`);
}
