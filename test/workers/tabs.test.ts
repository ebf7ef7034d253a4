/** Promises 1 and 3: exact tab IDs name the target through the person's changes; every change bumps the version once. */
import { describe, expect, it } from "vitest";
import { api, failure, newNote, ok } from "../support/workers.js";

const TAB_ID = /^(slides|sheet)-(\d+)-[0-9a-z]+$/;

describe("tab identity", () => {
  it("a tab ID keeps naming the same tab through the person's moves, renames and new tabs", async () => {
    const { noteId, version } = await newNote();
    const target = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "target", tab_type: "slides", label: "Q3 deck" });
    expect(target.tab_id).toMatch(TAB_ID);

    // The person adds a deck with the same label before it, renames both, and shuffles the strip.
    const twin = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "Q3 deck", position: 0 });
    expect(twin.status).toBe(201);
    await api("PATCH", `/notes/${noteId}/tabs/${target.tab_id}`, { label: "Old deck" });
    await api("PATCH", `/notes/${noteId}/tabs/${twin.body.tab.id}`, { label: "Old deck" });
    await api("PATCH", `/notes/${noteId}/tabs/${target.tab_id}`, { position: 0 });
    await api("POST", `/notes/${noteId}/tabs`, { tab_type: "sheet", label: "Numbers", position: 1 });
    await api("PATCH", `/notes/${noteId}/tabs/markdown`, { position: 5 });

    const list = await ok("list_note_tabs", { note_id: noteId });
    const edited = await ok("edit_note_tab", {
      note_id: noteId, expected_version: list.version, idempotency_key: "add", tab_id: target.tab_id, operation: "slide_add", title: "Late finding",
    });
    expect(edited.tab_id).toBe(target.tab_id);
    const whole = await api("GET", `/notes/${noteId}`);
    const slides = Object.fromEntries(whole.body.tabs.filter((t: any) => t.type === "slides").map((t: any) => [t.id, t.slides.map((s: any) => s.title)]));
    expect(slides).toEqual({ [target.tab_id]: ["Late finding"], [twin.body.tab.id]: [] });
  });

  it("tab IDs are never reused, not even after a delete", async () => {
    const { noteId } = await newNote();
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const added = await api("POST", `/notes/${noteId}/tabs`, { tab_type: i % 2 === 0 ? "slides" : "sheet" });
      seen.push(added.body.tab.id);
      expect((await api("DELETE", `/notes/${noteId}/tabs/${added.body.tab.id}`)).status).toBe(200);
    }
    expect(new Set(seen).size).toBe(4);
    const counters = seen.map((id) => Number(TAB_ID.exec(id)?.[2]));
    expect(counters).toEqual([...counters].sort((a, b) => a - b));
    expect(new Set(counters).size).toBe(4);
  });

  it("a type name or a label passed as tab_id gets tab_not_found, pointing to list_note_tabs", async () => {
    const { noteId, version } = await newNote();
    const created = await ok("create_note_tab", { note_id: noteId, expected_version: version, idempotency_key: "d", tab_type: "slides", label: "Q3 deck" });
    for (const wrong of ["slides", "Q3 deck", "slides-1", "SLIDES"]) {
      const error = await failure("edit_note_tab", {
        note_id: noteId, expected_version: created.version, idempotency_key: `k-${wrong}`, tab_id: wrong, operation: "slide_add", title: "x",
      });
      expect(error.code).toBe("tab_not_found");
      expect(error.message).toContain("list_note_tabs");
    }
    expect((await ok("list_note_tabs", { note_id: noteId })).version).toBe(created.version);
  });

  it("slides go only into slides tabs", async () => {
    const { noteId, version } = await newNote();
    for (const tabId of ["markdown", "sources", "files"]) {
      const error = await failure("edit_note_tab", { note_id: noteId, expected_version: version, idempotency_key: tabId, tab_id: tabId, operation: "slide_add", title: "x" });
      expect(error).toMatchObject({ code: "wrong_tab_type", tab_type: tabId, expected: ["slides"] });
    }
  });
});

describe("slides in storage", () => {
  it("a deck longer than one insert statement keeps every slide, in order", async () => {
    const { noteId } = await newNote();
    const added = await api("POST", `/notes/${noteId}/tabs`, { tab_type: "slides", label: "Long" });
    const slides = Array.from({ length: 47 }, (_, i) => ({ title: `Slide ${i}`, body: `b${i}`, notes: `n${i}` }));
    expect((await api("PUT", `/notes/${noteId}/tabs/${added.body.tab.id}/slides`, { slides })).status).toBe(200);
    const read = await ok("read_note_tab", { note_id: noteId, tab_id: added.body.tab.id });
    expect(read.slides).toEqual(slides.map((slide, index) => ({ id: expect.stringMatching(/^slide-\d+-[0-9a-z]+$/), index, ...slide })));
    expect(new Set(read.slides.map((s: { id: string }) => s.id)).size).toBe(47);
    expect(read.tab.slide_count).toBe(47);
  });
});

describe("versions", () => {
  it("every committed change, agent's or person's, bumps the version by one; reads and replays do not", async () => {
    const { noteId, version: v0 } = await newNote();
    let expected = v0;
    const version = async () => (await ok("list_note_tabs", { note_id: noteId })).version as number;

    const created = await ok("create_note_tab", { note_id: noteId, expected_version: expected, idempotency_key: "c", tab_type: "slides" });
    expect(created.version).toBe(++expected);
    await ok("create_note_tab", { note_id: noteId, expected_version: v0, idempotency_key: "c", tab_type: "slides" });
    await ok("read_note_tab", { note_id: noteId, tab_id: created.tab_id });
    await ok("list_note_attachments", { note_id: noteId, kind: "sources" });
    await api("GET", `/notes/${noteId}`);
    expect(await version()).toBe(expected);

    const edited = await ok("edit_note_tab", { note_id: noteId, expected_version: expected, idempotency_key: "e", tab_id: created.tab_id, operation: "slides_add_outline", slides: [{ title: "a" }, { title: "b" }] });
    expect(edited.version).toBe(++expected);
    const source = await ok("add_note_source", { note_id: noteId, expected_version: expected, idempotency_key: "s", title: "Report", url: "https://example.org/report" });
    expect(source.version).toBe(++expected);
    const again = await ok("add_note_source", { note_id: noteId, expected_version: expected, idempotency_key: "s2", title: "Report", url: "www.example.org/report/" });
    expect(again).toMatchObject({ already_attached: true, source_id: source.source_id, version: expected });

    const changes: [string, string, unknown][] = [
      ["POST", "/tabs", { tab_type: "sheet", label: "Sheet" }],
      ["PATCH", `/tabs/${created.tab_id}`, { label: "Renamed" }],
      ["PATCH", `/tabs/${created.tab_id}`, { position: 0 }],
      ["PUT", `/tabs/${created.tab_id}/slides`, { slides: [{ title: "only" }] }],
      ["PUT", "/markdown", { text: "# Notes" }],
      ["POST", "/files", { name: "plan.pdf", media_type: "application/pdf", size_bytes: 1234 }],
      ["POST", "/members", { user: "bob" }],
      ["PUT", "/approval", { approved: false }],
      ["PUT", "/approval", { approved: true }],
    ];
    for (const [method, path, body] of changes) {
      const answer = await api(method, `/notes/${noteId}${path}`, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      expect(answer.body.version, `${method} ${path}`).toBe(++expected);
    }
    const sheet = (await api("GET", `/notes/${noteId}`)).body.tabs.find((t: any) => t.type === "sheet");
    expect((await api("DELETE", `/notes/${noteId}/tabs/${sheet.id}`)).body.version).toBe(++expected);

    // A change that changes nothing commits nothing.
    expect((await api("PATCH", `/notes/${noteId}/tabs/${created.tab_id}`, { label: "Renamed" })).body.version).toBe(expected);
    expect((await api("PUT", `/notes/${noteId}/approval`, { approved: true })).body.version).toBe(expected);
    expect(await version()).toBe(expected);
  });

  it("the person's write with a stale expected_version is refused", async () => {
    const { noteId, version } = await newNote();
    await api("PUT", `/notes/${noteId}/markdown`, { text: "v2" });
    const stale = await api("PUT", `/notes/${noteId}/markdown`, { text: "v3", expected_version: version });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "version_conflict", expected_version: version, current_version: version + 1 });
  });
});
