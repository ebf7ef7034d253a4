/**
 * The part of autocannon 8's programmatic API the benchmark uses (the package
 * ships no types). See node_modules/autocannon/README.md.
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  namespace autocannon {
    /** What `setupRequest` receives and returns: one request, before it is serialized. */
    interface RequestParams {
      method?: "GET" | "POST" | "PUT" | "DELETE";
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
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
      connections?: number;
      pipelining?: number;
      /** Seconds; ignored when `amount` is given. */
      duration?: number;
      /** Total requests; the run ends when they are answered. */
      amount?: number;
      /** Milliseconds between samples; the run's end is noticed at a sample. */
      sampleInt?: number;
      /** Seconds before a request counts as timed out. */
      timeout?: number;
      method?: "GET" | "POST" | "PUT" | "DELETE";
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
      /** False for a body the run should count as a mismatch. */
      verifyBody?: (body: string) => boolean;
      excludeErrorStats?: boolean;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      [percentile: string]: number;
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      "2xx": number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram;
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options, done: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance;

  export default autocannon;
}
