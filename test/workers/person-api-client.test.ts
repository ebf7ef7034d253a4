/** The tooling's one client of the person's API (scripts/lib/person-api.ts), through the Worker's own fetch. */
import { beforeAll, describe, expect, it } from "vitest";
import { orThrow } from "../../scripts/lib/person-api.js";
import { personApi, signInAs, uniqueNoteId } from "../support/workers.js";

beforeAll(() => signInAs("app"));

describe("the person's API client", () => {
  it("returns a refusal as a value with the status and the server's error, and orThrow names what failed", async () => {
    const api = personApi();
    const noteId = uniqueNoteId();
    expect(await api.createNote({ note_id: noteId, title: "Client" })).toMatchObject({ ok: true, status: 201, value: { note_id: noteId, version: 1 } });
    const again = await api.createNote({ note_id: noteId, title: "Client" });
    expect(again).toMatchObject({ ok: false, status: 409, error: { code: "note_exists" } });
    expect(() => orThrow(again, `create Note ${noteId}`)).toThrow(`could not create Note ${noteId}: HTTP 409`);
  });

  it("gives the tab a Slides tab was added as, and the raw answer of a request the server refuses", async () => {
    const api = personApi();
    const noteId = uniqueNoteId();
    expect(await api.createApprovedNote(noteId)).toBe(2);
    const added = orThrow(await api.addTab(noteId, { tab_type: "slides", label: "Deck" }), "add a tab");
    expect(added).toMatchObject({ version: 3, tab: { type: "slides", label: "Deck" } });
    const raw = await api.request("PATCH", `/notes/${noteId}/tabs/${added.tab.id}`, { label: "x", position: 0 });
    expect(raw).toMatchObject({ status: 400, body: { error: { code: "invalid_arguments" } } });
  });
});
