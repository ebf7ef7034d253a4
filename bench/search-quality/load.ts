/**
 * Loading the corpus into a running connector, as a person and their agent
 * would: the person's API creates each Note with its Markdown and approves
 * it; the agent's tools add its tabs (create_note_tab: a deck's slides or a
 * Sheet's rows in the one call) and its sources (add_note_source). Notes load
 * eight at a time. Returns each label's item by the IDs the connector gave it.
 */
import { orThrow, type PersonApi } from "../../scripts/lib/person-api.js";
import { pool } from "../../scripts/lib/pool.js";
import { LIMITS } from "../../src/note/limits.js";
import { callTool } from "../mcp-call.js";
import { markdownOf, type Corpus } from "./corpus.js";
import type { Expected } from "./score.js";
import type { CorpusNote } from "./types.js";

interface LoadedNote {
  tabIds: string[];
  /** Per tab, its slides' or rows' IDs in order. */
  itemIds: string[][];
  sourceIds: string[];
}

async function loadNote(origin: string, agentToken: string, api: PersonApi, note: CorpusNote): Promise<LoadedNote> {
  const markdown = markdownOf(note);
  orThrow(await api.createNote({ note_id: note.noteId, title: note.title, ...(markdown === "" ? {} : { markdown }) }), `create Note ${note.noteId}`);
  let version = orThrow(await api.setApproval(note.noteId, { approved: true }), `approve Note ${note.noteId}`).version;
  const call = <T extends { version: number }>(tool: string, key: string, args: Record<string, unknown>): Promise<T> =>
    callTool<T>(origin, agentToken, tool, { note_id: note.noteId, expected_version: version, idempotency_key: `sq-${note.noteId}-${key}`, ...args });
  const loaded: LoadedNote = { tabIds: [], itemIds: [], sourceIds: [] };
  for (const [t, tab] of note.tabs.entries()) {
    if (tab.type === "slides" && tab.slides.length > LIMITS.slidesPerCall) throw new Error(`${note.noteId}: a deck of more than ${LIMITS.slidesPerCall} slides takes more than one call`);
    if (tab.type === "sheet" && tab.rows.length > LIMITS.rowsPerCall) throw new Error(`${note.noteId}: a Sheet of more than ${LIMITS.rowsPerCall} rows takes more than one call`);
    const content = tab.type === "slides" ? { slides: tab.slides.map(({ title, body, notes }) => ({ title, body, notes })) } : { columns: tab.columns, rows: tab.rows.map((r) => r.cells) };
    const created = await call<{ version: number; tab_id: string; slide_ids?: string[]; row_ids?: string[] }>("create_note_tab", `tab-${t}`, { tab_type: tab.type, label: tab.label, ...content });
    version = created.version;
    loaded.tabIds.push(created.tab_id);
    loaded.itemIds.push(created.slide_ids ?? created.row_ids ?? []);
  }
  for (const [s, source] of note.sources.entries()) {
    const added = await call<{ version: number; source_id: string; already_attached: boolean }>("add_note_source", `source-${s}`, { title: source.title, url: source.url, description: source.description });
    if (added.already_attached) throw new Error(`${note.noteId}: source ${s} (${source.url}) was attached already: the corpus repeats a URL in one Note`);
    version = added.version;
    loaded.sourceIds.push(added.source_id);
  }
  return loaded;
}

export async function loadCorpus(origin: string, agentToken: string, api: PersonApi, corpus: Corpus, log: (line: string) => void, signal?: AbortSignal): Promise<Map<string, Expected>> {
  const loaded = new Map<string, LoadedNote>();
  let done = 0;
  await pool(corpus.notes, 8, async (note) => {
    signal?.throwIfAborted();
    loaded.set(note.noteId, await loadNote(origin, agentToken, api, note));
    if (++done % 50 === 0) log(`[search:quality] ${done} of ${corpus.notes.length} Notes loaded`);
  });
  const expected = new Map<string, Expected>();
  for (const [label, target] of corpus.targets) {
    const note = loaded.get(target.noteId);
    if (note === undefined) throw new Error(`${label}: its Note ${target.noteId} was not loaded`);
    const at = (list: readonly string[] | undefined, i: number): string => {
      const id = list?.[i];
      if (id === undefined) throw new Error(`${label}: the connector answered no ID for item ${i} of ${target.noteId}`);
      return id;
    };
    switch (target.kind) {
      case "note":
        expected.set(label, { kind: "note", note_id: target.noteId });
        break;
      case "tab":
        expected.set(label, { kind: "tab", note_id: target.noteId, tab_id: at(note.tabIds, target.tab) });
        break;
      case "slide":
      case "row":
        expected.set(label, { kind: target.kind, note_id: target.noteId, tab_id: at(note.tabIds, target.tab), item_id: at(note.itemIds[target.tab], target.item) });
        break;
      case "source":
        expected.set(label, { kind: "source", note_id: target.noteId, item_id: at(note.sourceIds, target.item) });
        break;
      case "markdown":
        // The Markdown's first line is the `# title` heading: section 0. The corpus's sections follow it.
        expected.set(label, { kind: "markdown", note_id: target.noteId, heading: target.heading, section: target.section + 1 });
        break;
    }
  }
  return expected;
}
