/** The part of autocannon 8's programmatic API the benchmark uses (the package ships no types; see its README). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    /** What `setupRequest` receives and returns: one request, before it is serialized. */
    interface RequestParams {
      method?: "GET" | "POST";
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      [extra: string]: unknown;
    }

    interface Request extends RequestParams {
      /** Builds each request just before it is sent; `context` lives until the request list wraps. */
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null;
      /** Sees each response's status and whole body, with the same `context` the request was built with. */
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
    }

    interface Options {
      url: string;
      connections: number;
      pipelining: number;
      /** Seconds; ignored when `amount` is given. */
      duration?: number;
      /** Total requests; the run ends when they are answered. */
      amount?: number;
      /** Milliseconds between samples; the run's end is noticed at a sample. */
      sampleInt: number;
      /** Seconds before a request counts as timed out. */
      timeout: number;
      requests: Request[];
    }

    interface Result {
      /** Seconds. */
      duration: number;
      /** Socket errors and timeouts. */
      errors: number;
      statusCodeStats: Record<string, { count: number }>;
      latency: { p50: number; p99: number };
      requests: { total: number };
    }
  }

  function autocannon(options: autocannon.Options, done: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;
  namespace autocannon {
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  export default autocannon;
}
