/** The person's API at its edges: the version a DELETE checks, the JSON answer to a path or method it does not serve, and a list that shows no stale version. */
import { beforeAll, describe, expect, it } from "vitest";
import { api, fetchWorker, newNote, signInAs, TOKENS } from "../support/workers.js";

beforeAll(() => signInAs("app"));

/** A fresh Note with one sheet tab; its ID, the tab's and the version after adding it. */
async function noteWithTab(): Promise<{ noteId: string; tabId: string; version: number }> {
  const { noteId } = await newNote();
  const added = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "sheet", label: "Numbers" });
  expect(added.status).toBe(201);
  return { noteId, tabId: added.body.tab.id, version: added.body.version };
}

const tabIds = async (noteId: string): Promise<string[]> => (await api("GET", `/notes/${noteId}`)).body.tabs.map((t: { id: string }) => t.id);

describe("DELETE /notes/:id/tabs/:tab?expected_version=", () => {
  it("checks the version given in the query: a stale one is a conflict and the tab stays", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    const stale = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_version=${version - 1}`);
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "version_conflict", expected_version: version - 1, current_version: version });
    expect(await tabIds(noteId)).toContain(tabId);

    const current = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_version=${version}`);
    expect(current.status).toBe(200);
    expect(current.body.version).toBe(version + 1);
    expect(await tabIds(noteId)).not.toContain(tabId);
  });

  it("refuses a query version that is not a whole number, naming expected_version, and deletes nothing", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    const cases: [string, string][] = [
      ["abc", "must be a whole number"],
      ["1.5", "must be a whole number"],
      ["-1", "at least 1"],
      ["", "must be a whole number"],
      ["1e2", "must be a whole number"],
      ["0", "at least 1"],
    ];
    for (const [given, problem] of cases) {
      const answer = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_version=${encodeURIComponent(given)}`);
      expect({ given, status: answer.status, code: answer.body.error?.code, issues: answer.body.error?.issues }).toEqual({
        given, status: 400, code: "invalid_arguments", issues: [{ path: "expected_version", problem }],
      });
    }
    const twice = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_version=${version}&expected_version=1`);
    expect(twice.status).toBe(400);
    expect(twice.body.error.issues).toEqual([{ path: "expected_version", problem: "given more than once" }]);
    expect(await tabIds(noteId)).toContain(tabId);
    expect((await api("GET", `/notes/${noteId}`)).body.version).toBe(version);
  });

  it("refuses a query parameter whose escapes are not UTF-8, naming it, rather than reading its raw text", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    for (const escaped of ["%FF", "%ED%A0%BC", "%C0%80", "%E2%82"]) {
      const listed = await api("GET", `/notes?title_contains=${escaped}`);
      expect({ escaped, status: listed.status, issues: listed.body.error?.issues }).toEqual({
        escaped, status: 400, issues: [{ path: "title_contains", problem: "is not valid percent-encoded UTF-8" }],
      });
    }
    const named = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected%FF=${version}`);
    expect(named.status).toBe(400);
    expect(named.body.error.issues).toEqual([{ path: "expected%FF", problem: "is not valid percent-encoded UTF-8" }]);
    expect(await tabIds(noteId)).toContain(tabId);
    // Well-formed escapes and '+' still read as text.
    expect((await api("GET", `/notes?title_contains=%C3%9F+x`)).status).toBe(200);
  });

  it("names the API's routes, not the agents' tools, in what its errors tell to do", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    const stale = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_version=${version - 1}`);
    expect(stale.body.error.code).toBe("version_conflict");
    // The route with this Note's own ID in it.
    expect(stale.body.error.message).toContain(`GET /api/v1/notes/${noteId}, GET /api/v1/notes/${noteId}/tabs/{tab_id}`);
    const missing = await api("PATCH", "/notes/no-such-note", { title: "x" });
    expect(missing.body.error.code).toBe("note_not_found");
    expect(missing.body.error.message).toContain("GET /api/v1/notes");
    const cursor = await api("GET", "/notes?cursor=bm90LWEtY3Vyc29y");
    expect(cursor.body.error.issues[0].problem).toContain("GET /api/v1/notes");
    for (const answer of [stale, missing, cursor]) expect(JSON.stringify(answer.body)).not.toMatch(/list_note|read_note_tab/);
  });

  it("a row index given as its ID is told the route that lists this very tab's rows, not a {tab_id} placeholder", async () => {
    const { noteId, tabId } = await noteWithTab();
    const answer = await api("PATCH", `/notes/${noteId}/tabs/${tabId}/rows/0`, { after_id: null });
    expect(answer.body.error).toMatchObject({ code: "row_not_found", tab_id: tabId, row_id: "0" });
    for (const text of [answer.body.error.message, answer.body.error.hint]) {
      expect(text).toContain(`GET /api/v1/notes/${noteId}/tabs/${tabId} lists each row's id`);
      expect(text).not.toContain("{tab_id}");
    }
  });

  it("refuses expected_version given in both the query and the body, even when they agree", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    for (const inBody of [version, version - 1]) {
      const answer = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_version=${version}`, { expected_version: inBody });
      expect(answer.status).toBe(400);
      expect(answer.body.error.issues).toEqual([{ path: "expected_version", problem: "given in both the query string and the body; give it once" }]);
    }
    expect(await tabIds(noteId)).toContain(tabId);
  });

  it("still takes expected_version in the body, and a query parameter it does not read is refused, not ignored", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    const typo = await api("DELETE", `/notes/${noteId}/tabs/${tabId}?expected_versoin=${version - 1}`);
    expect(typo.status).toBe(400);
    expect(typo.body.error.issues).toEqual([{ path: "expected_versoin", problem: "unexpected field; the fields here are: expected_version" }]);
    const stale = await api("DELETE", `/notes/${noteId}/tabs/${tabId}`, { expected_version: version - 1 });
    expect(stale.status).toBe(409);
    expect(await tabIds(noteId)).toContain(tabId);
  });
});

describe("the query string on the other routes", () => {
  it("every change checks an expected_version given in the query", async () => {
    const { noteId, tabId, version } = await noteWithTab();
    const changes: [string, string, unknown][] = [
      ["PUT", "/markdown", { text: "x" }],
      ["PATCH", `/tabs/${tabId}`, { label: "Renamed" }],
      ["PUT", "/approval", { approved: false }],
      ["POST", "/tabs", { tab_type: "sheet" }],
    ];
    for (const [method, path, body] of changes) {
      const answer = await api(method, `/notes/${noteId}${path}?expected_version=${version - 1}`, body);
      expect({ method, path, status: answer.status, code: answer.body.error?.code }).toEqual({ method, path, status: 409, code: "version_conflict" });
    }
    expect((await api("PUT", `/notes/${noteId}/markdown?expected_version=${version}`, { text: "x" })).body.version).toBe(version + 1);
  });

  it("a query parameter a route does not read is refused, not ignored", async () => {
    const { noteId } = await newNote();
    // Each refusal names what the route's query takes.
    for (const [method, path, body, problem] of [
      ["GET", "/notes?page=2", undefined, "unexpected field; the fields here are: limit, cursor, title_contains"],
      ["GET", `/notes/${noteId}?fields=title`, undefined, "unexpected field; this takes no fields"],
      ["POST", "/notes?note_id=x", { title: "t" }, "unexpected field; this takes no fields"],
    ] as const) {
      const answer = await api(method, path, body);
      expect({ path, status: answer.status, issues: answer.body.error?.issues }).toEqual({ path, status: 400, issues: [{ path: /\?(\w+)=/.exec(path)?.[1], problem }] });
    }
  });
});

describe("paths and methods the API does not serve", () => {
  const send = (method: string, path: string) => fetchWorker(`/api/v1${path}`, { method, headers: { Authorization: `Bearer ${TOKENS.app}` } });

  it("an unknown path under /api/v1 answers 404 with the API's JSON error", async () => {
    for (const path of ["/nope", "/notes/x/nope", "/notes/x/tabs/y/z", ""]) {
      const response = await send("GET", path);
      expect({ path, status: response.status, type: response.headers.get("Content-Type") }).toEqual({ path, status: 404, type: "application/json" });
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("not_found");
      expect(body.error.message).toContain(`/api/v1${path}`);
    }
  });

  it("a known path with a method it does not take answers 405, its Allow header and the API's JSON error", async () => {
    const cases: [string, string, string][] = [
      ["PUT", "/notes", "GET, HEAD, POST"],
      ["PUT", "/notes/x", "GET, HEAD, PATCH, DELETE"],
      ["GET", "/notes/x/tabs", "POST"],
      ["POST", "/notes/x/tabs/y", "GET, HEAD, PATCH, DELETE"],
      ["GET", "/notes/x/tabs/y/slides", "POST, PUT"],
      ["PUT", "/notes/x/tabs/y/slides/z", "PATCH, DELETE"],
      ["GET", "/notes/x/tabs/y/rows", "POST"],
      ["POST", "/notes/x/tabs/y/rows/z", "PATCH, DELETE"],
      ["GET", "/notes/x/tabs/y/columns", "POST"],
      ["GET", "/notes/x/markdown", "PUT"],
      ["PUT", "/notes/x/attachments", "GET, HEAD"],
      ["GET", "/notes/x/files", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await send(method, path);
      expect({ method, path, status: response.status, allow: response.headers.get("Allow") }).toEqual({ method, path, status: 405, allow });
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("method_not_allowed");
      expect(body.error.message).toContain(allow);
    }
  });
});

describe("GET /notes", () => {
  it("lists the caller's Notes without a version, which the directory does not keep current", async () => {
    const { noteId, version } = await newNote({ title: "Listed" });
    // A change to the Note's content moves its version but not its directory entry.
    expect((await api("PUT", `/notes/${noteId}/markdown`, { text: "moved on" })).body.version).toBe(version + 1);
    const listed = await api("GET", "/notes");
    expect(listed.status).toBe(200);
    const entry = listed.body.notes.find((n: { note_id: string }) => n.note_id === noteId);
    expect(entry).toEqual({ note_id: noteId, title: "Listed", approved: true });
    for (const note of listed.body.notes) expect(Object.keys(note).sort()).toEqual(["approved", "note_id", "title"]);
  });
});
