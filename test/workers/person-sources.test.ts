/**
 * The person cites a page (issue 24): POST /api/v1/notes/:id/sources runs the
 * agent's own add_source, with its checks, URL normal form and dedupe; a
 * refusal leaves the Note byte-identical; the agent lists the person's source.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { dumpDatabase } from "../support/dump.js";
import { api, newNote, ok, signInAs } from "../support/workers.js";

beforeAll(() => signInAs("app", "agent"));

const stubOf = (noteId: string) => env.NOTES.get(env.NOTES.idFromName(noteId));
const dump = (noteId: string) => runInDurableObject(stubOf(noteId), (_instance, state) => dumpDatabase(state.storage.sql));
const versionOf = async (noteId: string): Promise<number> => (await api("GET", `/notes/${noteId}`)).body.version;

describe("POST /notes/:id/sources", () => {
  it("cites a new page (201), answers the same page under another spelling with the existing source (200, nothing written), and the agent lists it", async () => {
    const { noteId, version } = await newNote();
    const cited = await api("POST", `/notes/${noteId}/sources`, { url: "https://www.Example.org/report/?utm_source=x#top", title: "The report", description: "Why it matters", expected_version: version });
    expect(cited.status).toBe(201);
    expect(cited.body).toEqual({
      note_id: noteId,
      version: version + 1,
      source_id: "source-1",
      title: "The report",
      url: "https://www.example.org/report/?utm_source=x#top",
      normalized_url: "https://example.org/report",
      already_attached: false,
    });

    const before = await dump(noteId);
    const again = await api("POST", `/notes/${noteId}/sources`, { url: "http://example.org/report", title: "Another title", expected_version: version + 1 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ note_id: noteId, version: version + 1, source_id: "source-1", title: "The report", already_attached: true });
    // The dedupe writes nothing: no key record, no log entry, the version unchanged.
    expect(await dump(noteId)).toBe(before);
    expect(await versionOf(noteId)).toBe(version + 1);

    // The agent's dedupe answer is the same source.
    const agent = await ok("add_note_source", { note_id: noteId, expected_version: version + 1, idempotency_key: "k1", title: "x", url: "example.org/report/" });
    expect(agent).toMatchObject({ source_id: "source-1", already_attached: true, version: version + 1 });

    const listed = await ok("list_note_attachments", { note_id: noteId, kind: "sources" });
    expect(listed.items).toEqual([{ id: "source-1", title: "The report", url: "https://www.example.org/report/?utm_source=x#top", description: "Why it matters", added_at: expect.any(String) }]);
    const changes = await ok("list_note_changes", { note_id: noteId, since_version: version });
    expect(changes.changes).toEqual([expect.objectContaining({ version: version + 1, actor: { kind: "person", user: "alice" }, operation: "add_source", source_id: "source-1" })]);
  });

  it("refuses a bad URL with invalid_url naming the field, a missing title or version naming them, and a stale version with the changes since: the Note byte-identical each time", async () => {
    const { noteId, version } = await newNote();
    const cases: [unknown, number, string, string | undefined][] = [
      [{ url: "javascript:alert(1)", title: "x", expected_version: version }, 400, "invalid_url", undefined],
      [{ url: "https://ex\u202eample.org/", title: "x", expected_version: version }, 400, "invalid_url", undefined],
      [{ url: "localhost/x", title: "x", expected_version: version }, 400, "invalid_url", undefined],
      [{ url: "https://example.org/", title: " ", expected_version: version }, 400, "invalid_arguments", "title"],
      [{ url: "https://example.org/", title: "x" }, 400, "invalid_arguments", "expected_version"],
      [{ url: "https://example.org/", title: "x", expected_version: version, idempotency_key: "k" }, 400, "invalid_arguments", "idempotency_key"],
      [{ url: 7, title: "x", expected_version: version }, 400, "invalid_arguments", "url"],
    ];
    for (const [body, status, code, path] of cases) {
      const before = await dump(noteId);
      const answer = await api("POST", `/notes/${noteId}/sources`, body);
      expect({ body, status: answer.status, code: answer.body.error?.code }).toEqual({ body, status, code });
      if (code === "invalid_url") expect(answer.body.error.message).toMatch(/^url: /);
      else expect(answer.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(await dump(noteId)).toBe(before);
    }
    const bump = await api("PUT", `/notes/${noteId}/markdown`, { text: "moved on" });
    expect(bump.status).toBe(200);
    const before = await dump(noteId);
    const stale = await api("POST", `/notes/${noteId}/sources`, { url: "https://example.org/", title: "x", expected_version: version });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "version_conflict", expected_version: version, current_version: version + 1, changes: [expect.objectContaining({ operation: "set_markdown" })] });
    // In the person's API's terms, not the tools'.
    expect(stale.body.error.message).not.toMatch(/list_note_tabs/);
    expect(await dump(noteId)).toBe(before);
    expect((await ok("list_note_attachments", { note_id: noteId, kind: "sources" })).items).toEqual([]);
  });

  it("answers note_not_found for a Note the person is not a member of", async () => {
    const answer = await api("POST", `/notes/no-such-note-${crypto.randomUUID()}/sources`, { url: "https://example.org/", title: "x", expected_version: 1 });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe("note_not_found");
  });
});
