/**
 * A fetch for an MCP client under test that records every request it makes
 * and the answer's status and headers, so a test can assert what the client
 * sent (a discovery, a registration, a protocol revision's headers) and
 * what it did not.
 */

/** One request the client made, and the status it got. */
export interface Exchange {
  method: string;
  url: URL;
  /** The request's headers, as sent. */
  headers: Headers;
  /** The request's JSON body, parsed; undefined when it had none or it was not JSON. */
  body: unknown;
  status: number;
  responseHeaders: Headers;
  /** The answer's body as text (the client gets a copy); an event stream's is not kept. */
  responseText: () => Promise<string>;
}

export interface RecordingFetch {
  /** Pass to the client's transport (its `fetch` option; the v1 and v2 SDKs take the same shape). */
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** Every answered request so far, in the order their answers came. */
  readonly exchanges: Exchange[];
  /**
   * Resolves once no request is in flight, including one a client starts in the background
   * within a turn of the event loop after another's answer (v1 opens its SSE stream after a 202).
   */
  idle(): Promise<void>;
  /** "METHOD path status" for each exchange, for a readable assertion or message. */
  lines(): string[];
}

export function recordingFetch(): RecordingFetch {
  const exchanges: Exchange[] = [];
  const pending = new Set<Promise<unknown>>();
  return {
    exchanges,
    lines: () => exchanges.map((e) => `${e.method} ${e.url.pathname} ${e.status}`),
    async fetch(url, init) {
      const headers = new Headers(init?.headers);
      const answer = fetch(url, init);
      pending.add(answer);
      try {
        const response = await answer;
        // The body is read here and handed on as a copy, not teed with clone(): a teed body's
        // cancel() waits for both halves, and the v1 SDK cancels the bodies it does not read.
        const streamed = response.headers.get("Content-Type")?.startsWith("text/event-stream") === true;
        const text = streamed ? "" : await response.text();
        exchanges.push({
          method: init?.method ?? "GET",
          url: new URL(url),
          headers,
          body: jsonOf(init?.body),
          status: response.status,
          responseHeaders: response.headers,
          responseText: async () => (streamed ? Promise.reject(new Error("an event stream is not recorded")) : text),
        });
        if (streamed) return response;
        const bodiless = [101, 204, 205, 304].includes(response.status);
        return new Response(bodiless ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
      } finally {
        pending.delete(answer);
      }
    },
    async idle() {
      // A client may start a request when another's answer arrives: wait a turn after each round until none is in flight.
      do {
        await Promise.allSettled([...pending]);
        await new Promise((resolve) => setImmediate(resolve));
      } while (pending.size > 0);
    },
  };
}

function jsonOf(body: BodyInit | null | undefined): unknown {
  if (typeof body !== "string") return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The requests an MCP client sends when a call meets the 401: the call, both metadata documents, its registration. */
export function signInStart(mcpUrl: string, origin: string): string[] {
  return [
    `POST ${mcpUrl} 401`,
    `GET ${origin}/.well-known/oauth-protected-resource/mcp 200`,
    `GET ${origin}/.well-known/oauth-authorization-server 200`,
    `POST ${origin}/oauth/register 201`,
  ];
}

/** Exchanges as "METHOD url status" lines, to compare with signInStart. */
export function exchangeLines(exchanges: readonly Exchange[]): string[] {
  return exchanges.map((e) => `${e.method} ${e.url.href} ${e.status}`);
}
