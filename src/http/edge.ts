/**
 * Failures at the HTTP edge, the Hono way: a route throws an `HTTPException`
 * carrying its answer in its surface's own shape (JSON-RPC on /mcp, the API's
 * `{"error"}` on /api/v1, a page on /authorize), and `answerError`, every
 * app's `onError`, sends it. Anything else reaching `answerError` is a bug:
 * logged, and answered 500.
 *
 * @example
 * app.onError(answerError);
 * const refuse = (problem: string) => Response.json({ error: `body ${problem}` }, { status: 400 });
 * app.post("/x", limitBody(1024, () => Response.json({ error: "too large" }, { status: 413 }), refuse), async (c) => {
 *   const body = await readJson(c.req.raw, refuse);
 * });
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";

export function answerError(error: Error, c: Context): Response {
  if (error instanceof HTTPException) return error.getResponse();
  console.error("unhandled error", error);
  return c.json({ error: { code: "internal_error", message: "Internal error" } }, 500);
}

/** An HTTPException that answers with this response (its status is the response's). */
export function failWith(res: Response): HTTPException {
  return new HTTPException(res.status as ConstructorParameters<typeof HTTPException>[0], { res });
}

/** A surface's answer to a body it cannot use: `problem` in a few words, and the JSON parser's own `detail` if it has one. */
export type Refuse = (problem: string, detail?: string) => Response;

const UNREADABLE = "could not be read to its end";

/**
 * Hono's `bodyLimit`, answering `tooLarge()` past `maxSize` bytes, declared or
 * streamed, and `refuse(…)` when a streamed body breaks off (the client went away).
 */
export function limitBody(maxSize: number, tooLarge: () => Response, refuse: Refuse): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw failWith(tooLarge());
    },
  });
  return async (c, next) => {
    let read = false;
    try {
      await limit(c, () => ((read = true), next()));
    } catch (error) {
      if (read || error instanceof HTTPException) throw error;
      throw failWith(refuse(UNREADABLE));
    }
  };
}

/**
 * The request's body as JSON: undefined when it is empty. A body that cannot
 * be read (the client went away mid-body), is not UTF-8 or is not JSON throws
 * `refuse(problem, parser's detail)` as an HTTPException; `bodyLimit` checked the size before.
 * With `notJson`, a body that is not sent as `application/json` throws
 * `notJson(its Content-Type)` (a 415) before it is read as anything.
 */
export async function readJson(request: Request, refuse: Refuse, notJson?: (type: string | null) => Response): Promise<unknown> {
  let bytes: ArrayBuffer;
  try {
    bytes = await request.arrayBuffer();
  } catch {
    throw failWith(refuse(UNREADABLE));
  }
  const type = request.headers.get("Content-Type");
  if (notJson !== undefined && bytes.byteLength > 0 && !isJson(type)) throw failWith(notJson(type));
  // Nothing here inflates a compressed body: said so, rather than "not valid UTF-8" of its gzip bytes.
  const coding = request.headers.get("Content-Encoding")?.trim().toLowerCase();
  if (bytes.byteLength > 0 && coding !== undefined && coding !== "" && coding !== "identity") {
    throw failWith(refuse(`sent with Content-Encoding: ${coding.slice(0, 40)}, which this server does not decode; send it uncompressed`));
  }
  let text: string;
  try {
    // JSON travels as UTF-8 (RFC 8259 §8.1); a lenient decoder would store U+FFFD for what was sent.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw failWith(refuse("not valid UTF-8"));
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw failWith(refuse("not valid JSON", error instanceof Error ? error.message : undefined));
  }
}

/** Whether a Content-Type names JSON: `application/json`, with any parameters (`; charset=utf-8`). */
export function isJson(type: string | null): boolean {
  return type !== null && type.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}
