/**
 * One load with autocannon: fixed connections, a duration (or a number of
 * requests, still bounded in time), and every kind of failure counted apart
 * (socket errors and timeouts, non-2xx, bodies the workload refuses), never
 * averaged in.
 */
import autocannon from "autocannon";

export interface LoadOptions {
  origin: string;
  connections: number;
  /** Seconds the run lasts; ignored with `amount`. */
  durationSec: number;
  /** A fixed number of requests instead of a duration; the run still stops after `maxSec`. */
  amount?: number;
  maxSec?: number;
  /** The list autocannon cycles through per connection. */
  requests: autocannon.Request[];
  /** False for a 2xx body that is a failure (an MCP error, a write that did not commit); a request's own `accept` property wins. */
  accept?: (body: string) => boolean;
  /** A non-2xx status this workload expects (e.g. 405 from an authenticated GET /mcp); it is not counted as an error. */
  okStatus?: number;
  signal?: AbortSignal;
}

export interface LoadResult {
  /** Responses received (any status). */
  responses: number;
  seconds: number;
  /** Responses per second. */
  throughput: number;
  /** Latency of every response, ms (autocannon's resolution: whole milliseconds). */
  p50: number;
  p99: number;
  non2xx: number;
  /** 2xx bodies the workload refused (MCP `isError`, JSON-RPC errors, replays). */
  mcpErrors: number;
  /** Socket errors and timeouts. */
  socketErrors: number;
  /** The first failing body or status, to show what went wrong. */
  firstFailure?: string;
}

export function errorCount(result: LoadResult): number {
  return result.non2xx + result.mcpErrors + result.socketErrors;
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { origin, connections, durationSec, amount, maxSec = 120, requests, accept, okStatus, signal } = options;
  const expected = (status: number): boolean => (status >= 200 && status < 300) || status === okStatus;
  signal?.throwIfAborted();
  let firstFailure: string | undefined;
  let mcpErrors = 0;
  // Each request's onResponse sees status and body together, so a refused body is counted only when it came with a 2xx.
  const watched = requests.map((request): autocannon.Request => ({
    ...request,
    onResponse: (status, body, context, headers) => {
      const check = (request.accept as ((body: string) => boolean) | undefined) ?? accept;
      if (expected(status) && check !== undefined && !check(body)) {
        mcpErrors += 1;
        firstFailure ??= body.slice(0, 400);
      } else if (!expected(status)) {
        firstFailure ??= `HTTP ${status}: ${body.slice(0, 300)}`;
      }
      request.onResponse?.(status, body, context, headers);
    },
  }));
  return new Promise((resolve, reject) => {
    const opts: autocannon.Options = {
      url: origin,
      connections,
      pipelining: 1,
      timeout: 10,
      // autocannon checks for the end of a run at each sample: every 100 ms, so a run lasts its duration, not the next whole second.
      sampleInt: 100,
      requests: watched,
      ...(amount === undefined ? { duration: durationSec } : { amount }),
    };
    let guard: NodeJS.Timeout | undefined;
    const onAbort = (): void => instance.stop();
    const started = performance.now();
    const instance = autocannon(opts, (error, result) => {
      clearTimeout(guard);
      signal?.removeEventListener("abort", onAbort);
      if (error !== null) return reject(error);
      if (signal?.aborted === true) return reject(signal.reason instanceof Error ? signal.reason : new Error("stopped"));
      const responses = result.requests.total;
      // autocannon rounds its duration to 10 ms: a run of a few calls (`amount`) can last "0 s".
      const seconds = result.duration > 0 ? result.duration : (performance.now() - started) / 1000;
      const out: LoadResult = {
        responses,
        seconds,
        throughput: seconds > 0 ? responses / seconds : 0,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: Object.entries(result.statusCodeStats).reduce((sum, [code, { count }]) => sum + (expected(Number(code)) ? 0 : count), 0),
        mcpErrors,
        socketErrors: result.errors,
      };
      if (firstFailure !== undefined) out.firstFailure = firstFailure;
      resolve(out);
    });
    // autocannon listens for the result itself; an 'error' event must not crash the process.
    instance.on("error", () => undefined);
    if (amount !== undefined) guard = setTimeout(() => instance.stop(), maxSec * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
