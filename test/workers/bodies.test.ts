/** What the edge refuses: bodies too large (declared or streamed), cut off, not UTF-8 or not JSON, and query values that are not what they say — each a clear 4xx in its surface's shape, and nothing written. */
import { beforeAll, describe, expect, it } from "vitest";
import { api, fetchWorker, newNote, signInAs, TOKENS } from "../support/workers.js";

beforeAll(() => signInAs("agent", "app"));

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25" };

/** A body of `total` bytes sent as a stream, so no Content-Length announces its size. */
function streamOf(total: number, fill = 0x20): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const chunk = new Uint8Array(Math.min(64 * 1024, total - sent)).fill(fill);
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

/** A body that starts and then breaks off, like a client that went away mid-upload. */
function brokenStream(start: string): ReadableStream<Uint8Array> {
  let started = false;
  return new ReadableStream({
    pull(controller) {
      if (started) return controller.error(new Error("connection lost"));
      started = true;
      controller.enqueue(new TextEncoder().encode(start));
    },
  });
}

function post(path: string, token: string, headers: Record<string, string>, body: BodyInit, method = "POST"): Promise<Response> {
  return fetchWorker(path, { method, headers: { ...headers, Authorization: `Bearer ${token}` }, body, duplex: "half" } as RequestInit);
}

/** A request whose body breaks off, handed to the Worker's entry in this isolate (through the runtime's own fetch it would arrive merely cut short). */
async function postBroken(path: string, token: string, headers: Record<string, string>, start: string, method = "POST"): Promise<Response> {
  return post(path, token, headers, brokenStream(start), method);
}

async function jsonOf(response: Response): Promise<{ status: number; body: any }> {
  return { status: response.status, body: await response.json() };
}

/** `text` gzipped, as a client that compresses its request bodies sends it. */
function gzipped(text: string): Promise<ArrayBuffer> {
  return new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
}

const NOT_DECODED = "sent with Content-Encoding: gzip, which this server does not decode; send it uncompressed";

describe("POST /mcp", () => {
  it("a streamed body over 256 KiB without a Content-Length gets 413", async () => {
    const { status, body } = await jsonOf(await post("/mcp", TOKENS.agent, MCP_HEADERS, streamOf(300 * 1024)));
    expect(status).toBe(413);
    expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Request body larger than 262144 bytes" } });
  });

  it("a streamed body within the limit is served", async () => {
    const message = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }));
    const stream = new ReadableStream({ pull: (c) => (c.enqueue(message), c.close()) });
    const { status, body } = await jsonOf(await post("/mcp", TOKENS.agent, MCP_HEADERS, stream));
    expect(status).toBe(200);
    expect(body.id).toBe(7);
  });

  it("a body that breaks off mid-way is a JSON-RPC parse error with 400, not a 500", async () => {
    const answer = await jsonOf(await postBroken("/mcp", TOKENS.agent, MCP_HEADERS, '{"jsonrpc":"2.0","id":1,'));
    expect(answer).toEqual({ status: 400, body: { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: request body could not be read to its end" } } });
  });

  it("a body that is not UTF-8, empty or not JSON is a JSON-RPC parse error with 400", async () => {
    const bodies: [string, BodyInit][] = [
      ["not UTF-8", new Uint8Array([...new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"'), 0xff, ...new TextEncoder().encode('"}}')])],
      ["empty", ""],
      ["not JSON", "{not json"],
    ];
    for (const [what, body] of bodies) {
      const answer = await jsonOf(await post("/mcp", TOKENS.agent, MCP_HEADERS, body));
      expect({ what, status: answer.status, code: answer.body.error?.code, id: answer.body.id }).toEqual({ what, status: 400, code: -32700, id: null });
      expect(answer.body.error.message).toMatch(/^Parse error: /);
    }
  });

  it("a gzipped body is refused as one this server does not decode, not as bytes that are not UTF-8", async () => {
    const body = await gzipped('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    const answer = await jsonOf(await post("/mcp", TOKENS.agent, { ...MCP_HEADERS, "Content-Encoding": "gzip" }, body));
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 400, error: { code: -32700, message: `Parse error: request body ${NOT_DECODED}` } });
  });
});

describe("the person's API", () => {
  it("a streamed body over 1 MiB without a Content-Length gets 413 and writes nothing", async () => {
    const { noteId, version } = await newNote();
    const body = new Blob(['{"text":"', "x".repeat(1_100_000), '"}']).stream();
    const answer = await jsonOf(await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, { "Content-Type": "application/json" }, body, "PUT"));
    expect(answer).toMatchObject({ status: 413, body: { error: { code: "body_too_large" } } });
    expect((await api("GET", `/notes/${noteId}`)).body).toMatchObject({ version, markdown: "" });
  });

  it("a body that breaks off mid-way is invalid_arguments on (body), not a 500, and writes nothing", async () => {
    const { noteId, version } = await newNote();
    const answer = await jsonOf(await postBroken(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, { "Content-Type": "application/json" }, '{"text":"half', "PUT"));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_arguments", issues: [{ path: "(body)", problem: "could not be read to its end" }] });
    expect((await api("GET", `/notes/${noteId}`)).body).toMatchObject({ version, markdown: "" });
  });

  it("a body that is not UTF-8 or not JSON is invalid_arguments on (body) and writes nothing", async () => {
    const { noteId, version } = await newNote();
    const bodies: [string, BodyInit, string][] = [
      ["not UTF-8", new Uint8Array([...new TextEncoder().encode('{"text":"caf'), 0xe9, ...new TextEncoder().encode('"}')]), "not valid UTF-8"],
      ["not JSON", '{"text": ', "not valid JSON"],
    ];
    for (const [what, body, problem] of bodies) {
      const answer = await jsonOf(await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, { "Content-Type": "application/json" }, body, "PUT"));
      expect({ what, status: answer.status, code: answer.body.error?.code, issues: answer.body.error?.issues }).toEqual({
        what,
        status: 400,
        code: "invalid_arguments",
        issues: [{ path: "(body)", problem }],
      });
    }
    expect((await api("GET", `/notes/${noteId}`)).body).toMatchObject({ version, markdown: "" });
  });

  it("a gzipped body is invalid_arguments on (body) saying it is not decoded, and writes nothing; identity is no coding", async () => {
    const { noteId, version } = await newNote();
    const body = await gzipped(JSON.stringify({ text: "compressed" }));
    const answer = await jsonOf(await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, { "Content-Type": "application/json", "Content-Encoding": "gzip" }, body, "PUT"));
    expect({ status: answer.status, issues: answer.body.error?.issues }).toEqual({ status: 400, issues: [{ path: "(body)", problem: NOT_DECODED }] });
    expect((await api("GET", `/notes/${noteId}`)).body).toMatchObject({ version, markdown: "" });
    const plain = await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, { "Content-Type": "application/json", "Content-Encoding": "identity" }, JSON.stringify({ text: "plain" }), "PUT");
    expect(plain.status).toBe(200);
  });

  it("a body sent as anything but application/json is 415 unsupported_media_type, even when it is JSON, and writes nothing", async () => {
    const { noteId, version } = await newNote();
    const body = JSON.stringify({ text: "sent as text" });
    for (const [headers, sent] of [
      [{ "Content-Type": "text/plain" }, "as text/plain"],
      [{ "Content-Type": "text/plain;charset=UTF-8" }, "as text/plain;charset=UTF-8"],
      [{ "Content-Type": "application/x-www-form-urlencoded" }, "as application/x-www-form-urlencoded"],
      [{ "Content-Type": "application/jsonx" }, "as application/jsonx"],
    ] as const) {
      const answer = await jsonOf(await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, headers, body, "PUT"));
      expect({ headers, answer }).toEqual({
        headers,
        answer: { status: 415, body: { error: { code: "unsupported_media_type", message: `The body must be JSON, sent with Content-Type: application/json; this one was sent ${sent}.` } } },
      });
    }
    // A body with no Content-Type at all (fetch gives a string body text/plain; a stream none).
    const unlabelled = new Blob([body]).stream();
    const none = await jsonOf(await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, {}, unlabelled, "PUT"));
    expect(none).toMatchObject({ status: 415, body: { error: { code: "unsupported_media_type", message: expect.stringContaining("with no Content-Type") } } });
    expect((await api("GET", `/notes/${noteId}`)).body).toMatchObject({ version, markdown: "" });
    // application/json with parameters, in any case, is JSON; an empty body needs no type.
    const json = await jsonOf(await post(`/api/v1/notes/${noteId}/markdown`, TOKENS.app, { "Content-Type": "Application/JSON; charset=utf-8" }, body, "PUT"));
    expect(json).toMatchObject({ status: 200, body: { version: version + 1 } });
    const deleted = await fetchWorker(`/api/v1/notes/${noteId}?expected_version=${version + 1}`, { method: "DELETE", headers: { Authorization: `Bearer ${TOKENS.app}` } });
    expect(deleted.status).toBe(200);
  });
});

describe("the person's API query", () => {
  it("a page size that is not a whole number says so, and one out of range names its bounds", async () => {
    const { noteId } = await newNote();
    const cases: [string, string][] = [
      ["abc", "must be a whole number"],
      ["1.5", "must be a whole number"],
      ["", "must be a whole number"],
      ["0", "at least 1"],
      ["51", "at most 50"],
    ];
    for (const [limit, problem] of cases) {
      const answer = await api("GET", `/notes/${noteId}/attachments?kind=sources&limit=${limit}`);
      expect({ limit, status: answer.status, issues: answer.body.error?.issues }).toEqual({ limit, status: 400, issues: [{ path: "limit", problem }] });
    }
    expect((await api("GET", `/notes/${noteId}/attachments?kind=sources&limit=2`)).status).toBe(200);
  });
});

describe("the person's API fields", () => {
  it("a field of the wrong type is named with the type it needs, not as missing", async () => {
    const { noteId, version } = await newNote();
    const approval = await api("PUT", `/notes/${noteId}/approval`, { approved: "yes" });
    expect(approval.status).toBe(400);
    expect(approval.body.error.issues).toEqual([{ path: "approved", problem: "expected boolean" }]);
    const markdown = await api("PUT", `/notes/${noteId}/markdown`, { text: null });
    expect(markdown.body.error.issues).toEqual([{ path: "text", problem: "expected string" }]);
    const missing = await api("PUT", `/notes/${noteId}/markdown`, {});
    expect(missing.body.error.issues).toEqual([{ path: "text", problem: "required" }]);
    expect((await api("GET", `/notes/${noteId}`)).body.version).toBe(version);
  });
});
