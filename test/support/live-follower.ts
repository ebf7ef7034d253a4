/**
 * A client of a Note's live socket (docs/live.md) in Node, with the `ws`
 * package: it keeps `seen`, applies a change only when it is `seen + 1`,
 * ignores what it has seen, and reconnects with `since=seen` when the socket
 * drops or a change skips ahead. What the page does, without the page.
 */
import WebSocket from "ws";

export class LiveFollower {
  /** The last version applied (or the snapshot's). */
  seen = 0;
  /** Every entry applied, in order. */
  readonly applied: { version: number }[] = [];
  /** Entries applied from the `changes` frames of a reconnection: what it caught up on. */
  caughtUp = 0;
  /** Entries received at or below `seen`, and ignored. */
  ignored = 0;
  /** Times it opened the socket again after the first. */
  reconnects = 0;
  /** Close codes of the sockets it lost. */
  readonly closes: number[] = [];
  #socket: WebSocket | undefined;
  #stopped = false;
  /** While set, a lost socket waits for `release()` before it reconnects (a page backing off). */
  #held: Promise<void> | null = null;
  #release: () => void = () => {};
  readonly #waiters: (() => void)[] = [];

  constructor(
    readonly url: string,
    readonly noteId: string,
    readonly token: string,
  ) {}

  /** Opens the first socket, and resolves once its first frame has arrived. */
  start(): Promise<void> {
    return this.#open(null);
  }

  /** Resolves once `seen` is at least `version`. */
  async reach(version: number): Promise<void> {
    while (this.seen < version) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  /** Lost sockets wait to reconnect until `release()`. */
  hold(): void {
    this.#held = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#held = null;
    this.#release();
  }

  stop(): void {
    this.#stopped = true;
    this.#socket?.close(1000, "done");
    for (const wake of this.#waiters.splice(0)) wake();
  }

  #open(since: number | null): Promise<void> {
    const live = new URL(`/api/v1/notes/${this.noteId}/live`, this.url.replace(/^http/, "ws"));
    if (since !== null) live.searchParams.set("since", String(since));
    // As a browser page would: an Origin, this server's own.
    const socket = new WebSocket(live, { headers: { Authorization: `Bearer ${this.token}` }, origin: this.url });
    this.#socket = socket;
    return new Promise((resolve, reject) => {
      let first = true;
      socket.on("message", (data) => {
        this.#receive(JSON.parse(String(data)));
        if (first) (first = false), resolve();
      });
      socket.on("error", (error) => {
        if (first) reject(error);
      });
      socket.on("close", (code) => {
        if (first) return reject(new Error(`the live socket closed with ${code} before its first frame`));
        this.closes.push(code);
        if (socket === this.#socket) this.#reconnect();
      });
    });
  }

  #receive(message: any): void {
    if (message.type === "snapshot") {
      this.seen = message.version;
      this.applied.length = 0;
    } else if (message.type === "changes") {
      for (const change of message.changes) if (this.#apply(change)) this.caughtUp++;
    } else if (message.type === "change") {
      this.#apply(message.change);
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Applies the entry if it is the next one; whether it did. */
  #apply(change: { version: number }): boolean {
    if (change.version <= this.seen) {
      this.ignored++;
      return false;
    }
    if (change.version !== this.seen + 1) {
      // A gap: something was missed. Start over from what was seen.
      this.#socket?.close(1000, "gap");
      return false;
    }
    this.applied.push(change);
    this.seen = change.version;
    return true;
  }

  /** Tries again until a socket opens (the server may be restarting), every quarter second. */
  #reconnect(): void {
    if (this.#stopped) return;
    this.reconnects++;
    const attempt = (): void => {
      if (this.#stopped) return;
      this.#open(this.seen).catch(() => setTimeout(attempt, 250));
    };
    void (this.#held ?? Promise.resolve()).then(() => setTimeout(attempt, 250));
  }
}
