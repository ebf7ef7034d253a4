/**
 * Every kind of edit the person makes on a Note's page (issue 24, acceptance 1), on one Note with
 * two pages open: page A makes each edit from the keyboard, page B only watches. After each one,
 * `GET /api/v1/notes/:id` (or its attachments) shows it, page B shows it without a reload, and an
 * agent's `list_note_changes` lists it once, made by the person, under its operation. The Slides
 * and Sheet edits have their own files (slides.test.ts, sheet.test.ts).
 */
import type { Client } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { call, newNote, openPage, read, tabStrip, pickTab, tabTo, typeInto, useBrowserHarness, WAIT, type Harness, type OpenPage } from "./harness.js";

const harness = useBrowserHarness();
let h: Harness;
beforeAll(() => {
  h = harness();
});

interface WholeNote {
  version: number;
  title: string;
  markdown: string;
  members: string[];
  approved: boolean;
  tabs: { id: string; label: string }[];
}
interface Change {
  version: number;
  actor: { kind: string; user: string };
  operation: string;
  tab_label?: string;
  tab_label_before?: string;
  note_title?: string;
  note_title_before?: string;
  source_title?: string;
  file_name?: string;
}

describe("each kind of edit on the page: through the API, live on a second page, in the agent's change log", () => {
  it("tabs added, renamed, moved, deleted; the Markdown; a source; a file; the Note's title; a member added and removed; connectors revoked and approved", async () => {
    const { noteId, version: created } = await newNote(h, "Edits");
    const a = await openPage(h, noteId);
    const b = await openPage(h, noteId);
    const client: Client = await connectClient(h.server.mcpUrl, h.agentToken);
    const note = () => read<WholeNote>(h, `/notes/${noteId}`);
    /** The agent's view of the log after `since`. */
    const changes = async (since: number): Promise<Change[]> => (await call(client, "list_note_changes", { note_id: noteId, since_version: since })).changes;
    let seen = created;
    /**
     * The edit is committed (the API is one version on), and the agent's log has exactly that one new
     * entry: by the person, under `operation`, with `fields`.
     */
    const logged = async (operation: string, fields: Partial<Change> = {}): Promise<void> => {
      await expect.poll(async () => (await note()).version, WAIT).toBe(seen + 1);
      seen += 1;
      expect(await changes(seen - 1)).toEqual([expect.objectContaining({ version: seen, actor: { kind: "person", user: "alice" }, operation, ...fields })]);
      // Page B follows the version too (it never reloads: the mark below stays).
      await expect.poll(() => b.locator("#note-version").textContent(), WAIT).toBe(String(seen));
    };
    try {
      await b.evaluate(() => Object.assign(window, { stayedOpen: true }));

      // A tab added (a deck, the form's first kind): in the API, on B's strip, logged as add_tab.
      await typeInto(a, "#add-tab input[name=label]", "Draft");
      await a.keyboard.press("Enter");
      const added = a.locator('#tab-strip button:has-text("Draft")');
      await added.waitFor(WAIT);
      const tabId = (await added.getAttribute("data-tab-id")) as string;
      expect((await note()).tabs.find((t) => t.id === tabId)?.label).toBe("Draft");
      await expect.poll(() => b.locator(`#tab-strip button[data-tab-id="${tabId}"] .label`).textContent(), WAIT).toBe("Draft");
      await logged("add_tab", { tab_label: "Draft" });

      // Renamed.
      await expect.poll(() => a.locator("#tab-panel").getAttribute("data-tab-id"), WAIT).toBe(tabId);
      await typeInto(a, "#rename-tab input[name=label]", "Final");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).tabs.find((t) => t.id === tabId)?.label, WAIT).toBe("Final");
      await expect.poll(() => b.locator(`#tab-strip button[data-tab-id="${tabId}"] .label`).textContent(), WAIT).toBe("Final");
      await logged("rename_tab", { tab_label: "Final", tab_label_before: "Draft" });

      // Moved one earlier: B's strip in the API's new order.
      const order = (await note()).tabs.map((t) => t.id);
      const at = order.indexOf(tabId);
      expect(at).toBeGreaterThan(0);
      await tabTo(a, "#move-earlier");
      await a.keyboard.press("Enter");
      const moved = [...order.slice(0, at - 1), tabId, order[at - 1] as string, ...order.slice(at + 1)];
      await expect.poll(async () => (await note()).tabs.map((t) => t.id), WAIT).toEqual(moved);
      await expect.poll(async () => (await tabStrip(b)).map((t) => t.id), WAIT).toEqual(moved);
      await logged("move_tab");

      // Deleted, after its confirmation.
      await tabTo(a, "#delete-tab");
      await a.keyboard.press("Enter");
      expect(await a.evaluate(() => document.activeElement?.id)).toBe("confirm-delete");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).tabs.some((t) => t.id === tabId), WAIT).toBe(false);
      await expect.poll(() => b.locator(`#tab-strip button[data-tab-id="${tabId}"]`).count(), WAIT).toBe(0);
      expect(await tabStrip(b)).toEqual((await note()).tabs.map((t) => ({ id: t.id, label: t.label })));
      await logged("delete_tab");

      // The Markdown saved: B, on its Markdown tab, reads it rendered.
      await pickTab(b, "markdown");
      await pickTab(a, "markdown");
      await typeInto(a, "#markdown-text", "# Edits\n\nSaved on **page A**.");
      await tabTo(a, '#markdown-form button[type="submit"]');
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).markdown, WAIT).toBe("# Edits\n\nSaved on **page A**.");
      await expect.poll(() => b.locator("#markdown-view h3").textContent(), WAIT).toBe("Edits");
      expect(await b.locator("#markdown-view strong").textContent()).toBe("page A");
      await logged("set_markdown");

      // A source cited from the Sources tab's form.
      await pickTab(b, "sources");
      await pickTab(a, "sources");
      await typeInto(a, "#cite-source input[name=url]", "https://example.org/edits");
      await typeInto(a, "#cite-source input[name=title]", "The edits page");
      await tabTo(a, '#cite-source button[type="submit"]');
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await read<{ items: { id: string; title: string; url: string }[] }>(h, `/notes/${noteId}/attachments?kind=sources`)).items, WAIT).toEqual([
        expect.objectContaining({ id: "source-1", title: "The edits page", url: "https://example.org/edits" }),
      ]);
      await expect.poll(() => b.locator('#tab-content li[data-id="source-1"] a').textContent(), WAIT).toBe("The edits page");
      await logged("add_source", { source_title: "The edits page" });

      // A file's details recorded from the Files tab's form.
      await pickTab(b, "files");
      await pickTab(a, "files");
      await typeInto(a, "#add-file input[name=name]", "edits.pdf");
      await typeInto(a, "#add-file input[name=media_type]", "application/pdf");
      await typeInto(a, "#add-file input[name=size_bytes]", "2048");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await read<{ items: { id: string; name: string; media_type: string; size_bytes: number }[] }>(h, `/notes/${noteId}/attachments?kind=files`)).items, WAIT).toEqual([
        expect.objectContaining({ id: "file-1", name: "edits.pdf", media_type: "application/pdf", size_bytes: 2048 }),
      ]);
      await expect.poll(() => b.locator('#tab-content li[data-id="file-1"] strong').textContent(), WAIT).toBe("edits.pdf");
      await logged("add_file", { file_name: "edits.pdf" });

      // The Note renamed from the header.
      await tabTo(a, "#rename-note");
      await a.keyboard.press("Enter");
      expect(await a.evaluate(() => document.activeElement?.id)).toBe("note-title-input");
      await a.keyboard.press("Control+A");
      await a.keyboard.type("Edits, renamed");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).title, WAIT).toBe("Edits, renamed");
      await expect.poll(() => b.locator("#note-title").textContent(), WAIT).toBe("Edits, renamed");
      await logged("rename_note", { note_title: "Edits, renamed", note_title_before: "Edits" });

      // A member added, then removed after the confirmation.
      await typeInto(a, "#add-member input[name=user]", "bob");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).members, WAIT).toEqual(["alice", "bob"]);
      await expect.poll(() => b.locator("#members li bdi").allTextContents(), WAIT).toEqual(["alice", "bob"]);
      await logged("add_member");
      await tabTo(a, '#members button[data-action="remove:bob"]');
      await a.keyboard.press("Enter");
      expect(await a.evaluate(() => document.activeElement?.getAttribute("data-action"))).toBe("confirm:bob");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).members, WAIT).toEqual(["alice"]);
      await expect.poll(() => b.locator("#members li bdi").allTextContents(), WAIT).toEqual(["alice"]);
      await logged("remove_member");

      // Connectors revoked: the agent is refused while they are; approved again, it reads both changes.
      await tabTo(a, "#approval-toggle");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).approved, WAIT).toBe(false);
      await expect.poll(() => b.locator("#approval-state").textContent(), WAIT).toBe("not approved");
      const refused = await client.callTool({ name: "list_note_changes", arguments: { note_id: noteId, since_version: seen } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/approv/i);
      expect(await a.evaluate(() => document.activeElement?.id)).toBe("approval-toggle");
      await a.keyboard.press("Enter");
      await expect.poll(async () => (await note()).approved, WAIT).toBe(true);
      await expect.poll(() => b.locator("#approval-state").textContent(), WAIT).toBe("approved");
      await expect.poll(async () => (await note()).version, WAIT).toBe(seen + 2);
      expect((await changes(seen)).map((c) => [c.version, c.actor.kind, c.operation])).toEqual([
        [seen + 1, "person", "set_approval"],
        [seen + 2, "person", "set_approval"],
      ]);
      seen += 2;
      await expect.poll(() => b.locator("#note-version").textContent(), WAIT).toBe(String(seen));

      // B never reloaded; its feed lists the person's edits, newest first, each once.
      expect(await b.evaluate(() => (window as unknown as { stayedOpen?: boolean }).stayedOpen)).toBe(true);
      expect(await b.locator("#feed li").evaluateAll((items) => items.slice(0, 12).map((li) => li.getAttribute("data-operation")))).toEqual(
        ["set_approval", "set_approval", "remove_member", "add_member", "rename_note", "add_file", "add_source", "set_markdown", "delete_tab", "move_tab", "rename_tab", "add_tab"],
      );
      expect(a.problems).toEqual([]);
      expect(b.problems).toEqual([]);
    } finally {
      await client.close();
      await a.context().close();
      await b.context().close();
    }
  });
});
