/**
 * One edge, two doors (src/edge/fields.ts): the MCP tools and the person's API
 * refuse the same bad value with the same words, and the Note's own check
 * behind them (src/note/validate.ts) says it in those words too.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/note/limits.js";
import { api, failure, fetchWorker, newNote, ok, rawMcp, tokenOf } from "../support/workers.js";

async function deck(): Promise<{ noteId: string; tabId: string; slideId: string; version: number }> {
  const { noteId, version } = await newNote();
  const created = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "deck", tab_type: "slides", slides: [{ title: "One" }] });
  return { noteId, tabId: created.tab_id, slideId: created.slide_ids[0], version: created.version };
}

const write = (noteId: string, version: number) => ({ note_id: noteId, expected_version: version, idempotency_key: "bad-title" });

/** The Note's object, called as the app's own caller: no edge in front of it. */
const onNote = (noteId: string, name: "change_tab", input: Record<string, unknown>) =>
  env.NOTES.get(env.NOTES.idFromName(noteId)).execute(noteId, { user: "alice", channel: "app" }, name, input as never);

const TOO_LONG = "x".repeat(LIMITS.slideTitleLength + 1);

const BAD_TITLES: [string, unknown, string][] = [
  ["a lone surrogate", "a\ud800b", "must be well-formed Unicode (a lone surrogate at index 1)"],
  ["over-long", TOO_LONG, `at most ${LIMITS.slideTitleLength} UTF-16 code units (got ${LIMITS.slideTitleLength + 1})`],
  ["an emoji, which counts two units", `${"x".repeat(LIMITS.slideTitleLength - 1)}😀`, `at most ${LIMITS.slideTitleLength} UTF-16 code units (got ${LIMITS.slideTitleLength + 1})`],
  ["of the wrong type", 42, "expected string"],
  ["a control character", "bell\u0007", "must not contain control characters (U+0007 at index 4)"],
  ["a control character alone, which is not merely blank", "\u0000", "must not contain control characters (U+0000 at index 0)"],
  ["blank", " \u200b ", "must not be empty or blank (spaces and invisible characters only)"],
];

describe("a bad slide title is refused alike through the MCP tools and the person's API", () => {
  it.each(BAD_TITLES)("%s", async (_what, title, problem) => {
    const { noteId, tabId, slideId, version } = await deck();
    const inList = [{ path: "slides[0].title", problem }];
    const alone = [{ path: "title", problem }];

    // A list of slides: create_note_tab, slides_add_outline, and the API's two slide-list routes.
    const created = await failure("create_note_tab", { ...write(noteId, version), tab_type: "slides", slides: [{ title }] });
    const outlined = await failure("edit_note_tab", { ...write(noteId, version), tab_id: tabId, operation: "slides_add_outline", slides: [{ title }] });
    const appended = await api("POST", `/notes/${noteId}/tabs/${tabId}/slides`, { slides: [{ title }] });
    const replaced = await api("PUT", `/notes/${noteId}/tabs/${tabId}/slides`, { slides: [{ title }] });
    for (const [door, error] of [
      ["create_note_tab", created],
      ["edit_note_tab slides_add_outline", outlined],
      ["POST …/slides", appended.body.error],
      ["PUT …/slides", replaced.body.error],
    ] as const) {
      expect({ door, code: error.code, issues: error.issues, message: error.message }).toEqual({
        door,
        code: "invalid_arguments",
        issues: inList,
        message: `Invalid arguments. slides[0].title: ${problem}`,
      });
    }
    expect([appended.status, replaced.status]).toEqual([400, 400]);

    // One slide's title: slide_add, slide_update, and the API's PATCH of a slide.
    const added = await failure("edit_note_tab", { ...write(noteId, version), tab_id: tabId, operation: "slide_add", title });
    const updated = await failure("edit_note_tab", { ...write(noteId, version), tab_id: tabId, operation: "slide_update", slide_id: slideId, title });
    const patched = await api("PATCH", `/notes/${noteId}/tabs/${tabId}/slides/${slideId}`, { title });
    for (const [door, error] of [
      ["edit_note_tab slide_add", added],
      ["edit_note_tab slide_update", updated],
      ["PATCH …/slides/:slide", patched.body.error],
    ] as const) {
      expect({ door, issues: error.issues, message: error.message }).toEqual({ door, issues: alone, message: `Invalid arguments. title: ${problem}` });
    }
    expect(patched.status).toBe(400);

    // The Note's own check, with no edge in front: the same words (it says "must be a string" of another type).
    const direct = await onNote(noteId, "change_tab", { tab_id: tabId, operation: "slides_add_outline", slides: [{ title }] });
    expect(direct).toEqual({ ok: false, error: expect.objectContaining({ code: "invalid_arguments", issues: [{ path: "slides[0].title", problem: typeof title === "string" ? problem : "must be a string" }] }) });

    // Nothing was written.
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
  });
});

describe("other fields the two doors share", () => {
  it("a tab label: over-long, on two lines, or not text, in the same words", async () => {
    const { noteId, tabId, version } = await deck();
    for (const [label, problem] of [
      ["x".repeat(LIMITS.tabLabelLength + 1), `at most ${LIMITS.tabLabelLength} UTF-16 code units (got ${LIMITS.tabLabelLength + 1})`],
      ["a\nb", "must be one line"],
      [7, "expected string"],
    ] as const) {
      const tool = await failure("create_note_tab", { ...write(noteId, version), tab_type: "slides", label });
      const added = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label });
      const renamed = await api("PATCH", `/notes/${noteId}/tabs/${tabId}`, { label });
      for (const error of [tool, added.body.error, renamed.body.error]) expect({ label, issues: error.issues }).toEqual({ label, issues: [{ path: "label", problem }] });
    }
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
  });

  it("a cell with a control character, and a column name with spaces around it, in the same words", async () => {
    const { noteId, version } = await newNote();
    const sheet = await ok("create_note_tab", { ...write(noteId, version), idempotency_key: "sheet", tab_type: "sheet", columns: ["A"] });
    const cell = [{ path: "rows[0].A", problem: "must not contain control characters (U+001B at index 2)" }];
    expect((await failure("edit_note_tab", { ...write(noteId, sheet.version), tab_id: sheet.tab_id, operation: "rows_append", rows: [{ A: "ab\u001b[31m" }] })).issues).toEqual(cell);
    expect((await api("POST", `/notes/${noteId}/tabs/${sheet.tab_id}/rows`, { rows: [{ A: "ab\u001b[31m" }] })).body.error.issues).toEqual(cell);
    const name = [{ path: "columns[0]", problem: "must not start or end with spaces" }];
    expect((await failure("edit_note_tab", { ...write(noteId, sheet.version), tab_id: sheet.tab_id, operation: "columns_add", columns: [" B"] })).issues).toEqual(name);
    expect((await api("POST", `/notes/${noteId}/tabs/${sheet.tab_id}/columns`, { columns: [" B"] })).body.error.issues).toEqual(name);
  });

  it("a bad Note ID, in a route's path, in POST /notes's body or in a tool's note_id, in the same words", async () => {
    const pattern = "must be letters, digits, '-' or '_', starting with a letter or digit";
    for (const [noteId, problem] of [
      ["x".repeat(LIMITS.noteIdLength + 1), `at most ${LIMITS.noteIdLength} UTF-16 code units (got ${LIMITS.noteIdLength + 1})`],
      ["café", pattern],
      ["-x", pattern],
    ] as const) {
      const told = { noteId, code: "invalid_arguments", issues: [{ path: "note_id", problem }], message: `Invalid arguments. note_id: ${problem}` };
      const tool = await failure("list_note_tabs", { note_id: noteId });
      const read = await api("GET", `/notes/${encodeURIComponent(noteId)}`);
      const renamed = await api("PATCH", `/notes/${encodeURIComponent(noteId)}`, { title: "Renamed" });
      const created = await api("POST", "/notes", { note_id: noteId, title: "New" });
      for (const error of [tool, read.body.error, renamed.body.error, created.body.error]) {
        expect({ noteId, code: error.code, issues: error.issues, message: error.message }).toEqual(told);
      }
      expect([read.status, renamed.status, created.status]).toEqual([400, 400, 400]);
    }
  });

  it("a version that is not a whole number, or that JSON reads as Infinity, is told in the Note's words through either door", async () => {
    const { noteId, tabId, version } = await deck();
    // Sent as written: JSON.stringify cannot spell 1e400, which JSON.parse reads as Infinity.
    for (const [spelt, problem] of [
      ["2.5", "must be a whole number"],
      ["1e400", "must be a finite number"],
    ] as const) {
      const told = { spelt, issues: [{ path: "expected_version", problem }] };
      const args = `{"note_id":${JSON.stringify(noteId)},"expected_version":${spelt},"idempotency_key":"bad-version","tab_type":"slides"}`;
      const { result } = await rawMcp(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note_tab","arguments":${args}}}`);
      expect(result.isError).toBe(true);
      expect({ spelt, issues: JSON.parse(result.content[0].text).error.issues }).toEqual(told);
      const response = await fetchWorker(`/api/v1/notes/${noteId}/tabs/${tabId}`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${await tokenOf("app")}`, "Content-Type": "application/json" },
        body: `{"label":"Renamed","expected_version":${spelt}}`,
      });
      expect(response.status).toBe(400);
      expect({ spelt, issues: ((await response.json()) as { error: { issues: unknown } }).error.issues }).toEqual(told);
    }
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(version);
  });

  it("an unknown field names the fields taken, through either door", async () => {
    const { noteId, tabId, version } = await deck();
    const tool = await failure("edit_note_tab", { ...write(noteId, version), tab_id: tabId, operation: "slides_add_outline", slides: [{ title: "a", subtitle: "b" }] });
    const route = await api("POST", `/notes/${noteId}/tabs/${tabId}/slides`, { slides: [{ title: "a", subtitle: "b" }] });
    const told = [{ path: "slides[0].subtitle", problem: "unexpected field; the fields here are: title, body, notes" }];
    expect(tool.issues).toEqual(told);
    expect(route.body.error.issues).toEqual(told);
    // The Note's own check names what the operation takes in the same words.
    const direct = await onNote(noteId, "change_tab", { tab_id: tabId, operation: "slides_add_outline", slides: [{ title: "a", subtitle: "b" }] });
    expect(direct).toEqual({ ok: false, error: expect.objectContaining({ issues: told }) });
  });
});
