/**
 * What the connector reads from the sign-in provider (its metadata, its key
 * set, its token endpoint's answer) is bounded in size as well as in time: a
 * provider that streams without end, by mistake or not, costs one refused
 * sign-in, not the isolate's memory.
 */

/** Far above any real discovery document, key set or token answer (a few KiB each). */
export const MAX_PROVIDER_ANSWER_BYTES = 256 * 1024;

/** An answer over the size bound. */
export class AnswerTooLarge extends Error {}

/** The response's body as JSON (null when it is not JSON); throws `AnswerTooLarge` past the bound, without reading on. */
export async function boundedJson(response: Response): Promise<unknown> {
  const text = new TextDecoder().decode(await boundedBytes(response));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** `fetch` for jose's key set: the same response, its body read within the bound. */
export async function boundedFetch(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  return new Response(await boundedBytes(response), { status: response.status, headers: response.headers });
}

async function boundedBytes(response: Response): Promise<Uint8Array> {
  const declared = Number(response.headers.get("Content-Length") ?? "0");
  if (declared > MAX_PROVIDER_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new AnswerTooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_PROVIDER_ANSWER_BYTES) {
      await reader.cancel();
      throw new AnswerTooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
