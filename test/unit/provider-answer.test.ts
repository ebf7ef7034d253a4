/** What the connector reads from a sign-in provider is bounded in size: an endless answer is a refused sign-in. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { discover } from "../../src/auth/oidc-discovery.js";
import { AnswerTooLarge, boundedFetch, boundedJson, MAX_PROVIDER_ANSWER_BYTES } from "../../src/auth/provider-answer.js";
import { SignInFailure } from "../../src/auth/sign-in-failure.js";

/** A body that never ends, counting what was pulled from it and whether it was cancelled. */
function endless(): { response: Response; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const chunk = new TextEncoder().encode(`{"a":"${"x".repeat(16 * 1024)}`);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { "Content-Type": "application/json" } }), pulled: () => pulled, cancelled: () => cancelled };
}

afterEach(() => vi.restoreAllMocks());

describe("answers from the sign-in provider", () => {
  it("reads JSON within the bound, and null for what is not JSON", async () => {
    expect(await boundedJson(Response.json({ issuer: "https://id.example.com" }))).toEqual({ issuer: "https://id.example.com" });
    expect(await boundedJson(new Response("<html>"))).toBeNull();
  });

  it("stops reading an endless body just past the bound, and cancels it", async () => {
    const stream = endless();
    await expect(boundedJson(stream.response)).rejects.toBeInstanceOf(AnswerTooLarge);
    expect(stream.pulled()).toBeLessThan(MAX_PROVIDER_ANSWER_BYTES + 64 * 1024);
    expect(stream.cancelled()).toBe(true);
  });

  it("refuses a declared Content-Length over the bound without reading", async () => {
    const response = new Response("{}", { headers: { "Content-Length": String(MAX_PROVIDER_ANSWER_BYTES + 1) } });
    await expect(boundedJson(response)).rejects.toBeInstanceOf(AnswerTooLarge);
  });

  it("a provider's oversized metadata ends discovery in a 502 sign-in failure that says why", async () => {
    // Valid metadata but for a 1 MiB padding field: read whole, it would be accepted.
    const padded = { issuer: "https://endless.example.com", authorization_endpoint: "https://endless.example.com/auth", token_endpoint: "https://endless.example.com/token", jwks_uri: "https://endless.example.com/jwks", padding: "x".repeat(1024 * 1024) };
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json(padded));
    const failure = await discover("https://endless.example.com").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SignInFailure);
    expect((failure as SignInFailure).status).toBe(502);
    expect((failure as SignInFailure).message).toContain(`larger than ${MAX_PROVIDER_ANSWER_BYTES} bytes`);
  });

  it("jose's key-set fetch gets the same bound", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => endless().response);
    await expect(boundedFetch("https://endless.example.com/jwks", {})).rejects.toBeInstanceOf(AnswerTooLarge);
  });
});
