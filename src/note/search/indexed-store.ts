/**
 * The Note's store with its search index kept current (docs/search.md,
 * "Within a Note"): every content write through it also writes the documents
 * it changed, in the same transaction, so a search sees every committed change
 * and a failed call leaves the index as it was. Reverts run through the same
 * methods (undo.ts), so they re-index by themselves.
 *
 * It reads nothing it does not need: the rules read a tab, a slide or the
 * meta before they change it, and what a transaction read is remembered to
 * tell what changed (a tab's label, a slide's text). A document changed twice
 * in one transaction is written once, at its end; then each member's
 * directory is queued what changed (an IndexDelta on the Note's entry), and
 * a new member the Note's whole index.
 */
import { isTrash } from "../undo.js";
import type { Result } from "../result.js";
import type { AttachmentKind } from "../cursor.js";
import type { ChangeEntry } from "../changes.js";
import type {
  ChangeUndo,
  DirectoryEntry,
  DirectoryWhen,
  FileRow,
  IdempotencyRecord,
  Keyed,
  NewFile,
  NewSource,
  NoteMeta,
  NoteStore,
  OwedEntry,
  ScoredDoc,
  SearchAfter,
  Sequence,
  SheetRow,
  Slide,
  SourceRow,
  TabRow,
} from "../store.js";
import type { ChangeTouch } from "../undo.js";
import type { IndexDelta } from "./contract.js";
import {
  fileKey,
  fileText,
  markdownSections,
  NOTE_ITEM,
  NOTE_KEY,
  noteText,
  rowKey,
  rowText,
  sectionKey,
  slideKey,
  slideText,
  sourceKey,
  sourceText,
  tabKey,
  tabText,
  type IndexDoc,
} from "./documents.js";

/** A directory entry's whole copy of the index is cut into entries of about this many characters of text each. */
export const INDEX_CHUNK_CHARS = 200_000;

type EntryHeader = Omit<DirectoryEntry, "index" | "removed">;

/**
 * The entries that give a directory the Note's whole index: the first resets
 * what it held of the Note, each puts a part of the documents, in key order.
 */
export function wholeIndexEntries(header: EntryHeader, docs: readonly IndexDoc[]): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  let put: [number, string][] = [];
  let chars = 0;
  const flush = () => {
    const index: IndexDelta = entries.length === 0 ? { reset: true } : {};
    if (put.length > 0) index.put = put;
    entries.push({ ...header, index });
    put = [];
    chars = 0;
  };
  for (const doc of docs) {
    if (put.length > 0 && chars + doc.text.length > INDEX_CHUNK_CHARS) flush();
    put.push([doc.key, doc.text]);
    chars += doc.text.length + 16;
  }
  if (put.length > 0 || entries.length === 0) flush();
  return entries;
}

type Item = { id: string };
type Found<T> = Keyed<T> & { tab_id: string };

/** A directory entry queued in a transaction, for a member, and when it must reach them. */
interface Queued {
  user: string;
  entry: DirectoryEntry;
  when: DirectoryWhen;
}

/** What one transaction read and changed. */
class Tx {
  /** The meta as last read or written (undefined: not read). */
  meta: NoteMeta | null | undefined = undefined;
  readonly tabs = new Map<string, TabRow | null>();
  markdown: string | undefined = undefined;
  readonly members = new Map<string, boolean>();
  readonly newMembers = new Set<string>();
  /** Each document changed, by key: its new text, or null when it leaves the index. */
  readonly docs = new Map<number, IndexDoc | null>();
  /** Directory entries the rules queued, written at the end with the index's changes on them. */
  pending: Queued[] = [];
  /** Items as last found or written, by kind and ID. */
  readonly items = { slide: new Map<string, Found<Item>>(), row: new Map<string, Found<Item>>() };
  /** A tab's whole list of items as last read whole, by kind and tab, while nothing wrote to it. */
  readonly lists = { slide: new Map<string, Keyed<Item>[]>(), row: new Map<string, Keyed<Item>[]>() };
  /** Tabs whose items all moved away in this transaction, by kind. */
  readonly emptied = { slide: new Set<string>(), row: new Set<string>() };

  put(key: number | null, item: string, index: string): void {
    if (key !== null) this.docs.set(key, { key, item, text: index });
  }
  drop(key: number | null): void {
    if (key !== null) this.docs.set(key, null);
  }
}

type Kind = "slide" | "row";

/** A kind of item's document: its key and its indexed text. */
const DOCS: Record<Kind, { key: (id: string) => number | null; index: (item: Item) => string }> = {
  slide: { key: slideKey, index: (item) => slideText(item as Slide).index },
  row: { key: rowKey, index: (item) => rowText((item as SheetRow).cells).index },
};

export class IndexedStore implements NoteStore {
  readonly slides: Sequence<Slide>;
  readonly rows: Sequence<SheetRow>;
  #tx: Tx | null = null;

  constructor(readonly inner: NoteStore) {
    this.slides = new IndexedSequence<Slide>(inner.slides, "slide", () => this.#tx);
    this.rows = new IndexedSequence<SheetRow>(inner.rows, "row", () => this.#tx);
  }

  transaction<T>(fn: () => Result<T>): Result<T> {
    return this.inner.transaction(() => {
      const tx = new Tx();
      this.#tx = tx;
      try {
        const result = fn();
        if (result.ok) this.#finish(tx);
        return result;
      } finally {
        this.#tx = null;
      }
    });
  }

  /** Writes the changed documents, then queues the rules' directory entries with each member's share of the changes. */
  #finish(tx: Tx): void {
    const put: [number, string][] = [];
    const drop: number[] = [];
    for (const [key, doc] of [...tx.docs].sort(([a], [b]) => a - b)) {
      if (doc === null) {
        this.inner.searchDrop(key);
        drop.push(key);
      } else {
        this.inner.searchPut(doc);
        put.push([key, doc.text]);
      }
    }
    const pending = tx.pending;
    const changed = put.length + drop.length > 0;
    if (changed || tx.newMembers.size > 0) {
      const meta = tx.meta === undefined ? this.inner.readMeta() : tx.meta;
      if (meta !== null && !meta.deleted) {
        const header: EntryHeader = { note_id: meta.note_id, title: meta.title, approved: meta.approved, version: meta.version };
        const delta: IndexDelta = {};
        if (drop.length > 0) delta.drop = drop;
        if (put.length > 0) delta.put = put;
        const lastEntry = (user: string) => pending.findLastIndex((p) => p.user === user && p.entry.removed !== true);
        const whole = tx.newMembers.size > 0 ? wholeIndexEntries(header, this.inner.searchDump()) : [];
        for (const user of this.inner.members()) {
          const isNew = tx.newMembers.has(user);
          if (!isNew && !changed) continue;
          const entries = isNew ? whole : [{ ...header, index: delta }];
          const at = lastEntry(user);
          if (at < 0) {
            // Search documents alone go soon after the answer; a new member's whole copy now, with their listing.
            for (const entry of entries) pending.push({ user, entry, when: isNew ? "now" : "soon" });
            continue;
          }
          const [first, ...rest] = entries as [DirectoryEntry, ...DirectoryEntry[]];
          const held = pending[at] as Queued;
          held.entry = { ...held.entry, index: first.index as IndexDelta };
          pending.splice(at + 1, 0, ...rest.map((entry) => ({ user, entry, when: held.when })));
        }
      }
    }
    for (const { user, entry, when } of pending) this.inner.queueDirectoryEntry(user, entry, when);
  }

  readMeta(): NoteMeta | null {
    const meta = this.inner.readMeta();
    if (this.#tx !== null) this.#tx.meta = meta === null ? null : { ...meta };
    return meta;
  }
  writeMeta(meta: NoteMeta): void {
    const tx = this.#tx;
    if (tx === null) return this.inner.writeMeta(meta);
    const old = tx.meta === undefined ? this.inner.readMeta() : tx.meta;
    this.inner.writeMeta(meta);
    if (old === null || old.title !== meta.title) tx.put(NOTE_KEY, NOTE_ITEM, noteText(meta).index);
    tx.meta = { ...meta };
  }

  isMember(user: string): boolean {
    const member = this.inner.isMember(user);
    this.#tx?.members.set(user, member);
    return member;
  }
  addMember(user: string, role: "owner" | "editor"): void {
    const tx = this.#tx;
    if (tx === null) return this.inner.addMember(user, role);
    const was = tx.members.get(user) ?? this.inner.isMember(user);
    this.inner.addMember(user, role);
    if (!was) tx.newMembers.add(user);
    tx.members.set(user, true);
  }
  removeMember(user: string): void {
    this.inner.removeMember(user);
    this.#tx?.members.set(user, false);
    this.#tx?.newMembers.delete(user);
  }
  members(): string[] {
    return this.inner.members();
  }

  tabs(): TabRow[] {
    const tabs = this.inner.tabs();
    for (const tab of tabs) this.#tx?.tabs.set(tab.id, { ...tab });
    return tabs;
  }
  tab(id: string): TabRow | null {
    const tab = this.inner.tab(id);
    this.#tx?.tabs.set(id, tab === null ? null : { ...tab });
    return tab;
  }
  insertTab(tab: TabRow): void {
    this.inner.insertTab(tab);
    const tx = this.#tx;
    if (tx === null) return;
    tx.tabs.set(tab.id, { ...tab });
    tx.put(tabKey(tab.id), tab.id, tabText(tab).index);
  }
  updateTab(tab: TabRow): void {
    const tx = this.#tx;
    if (tx === null) return this.inner.updateTab(tab);
    const old = tx.tabs.has(tab.id) ? (tx.tabs.get(tab.id) ?? null) : this.inner.tab(tab.id);
    this.inner.updateTab(tab);
    if (old === null) return;
    if (old.label !== tab.label) tx.put(tabKey(tab.id), tab.id, tabText(tab).index);
    tx.tabs.set(tab.id, { ...tab, type: old.type });
  }
  deleteTab(id: string): void {
    const tx = this.#tx;
    if (tx !== null) {
      tx.drop(tabKey(id));
      // Items still in the tab go with it (the rules move them to a trash first: then nothing is read here).
      for (const [kind, items] of [["slide", this.inner.slides], ["row", this.inner.rows]] as const) {
        if (tx.emptied[kind].has(id)) continue;
        for (const item of (items as Sequence<Item>).all(id)) tx.drop(DOCS[kind].key(item.id));
      }
      tx.tabs.set(id, null);
    }
    this.inner.deleteTab(id);
  }

  slideTitled(tabId: string, title: string): boolean {
    return this.inner.slideTitled(tabId, title);
  }

  markdown(): string {
    const text = this.inner.markdown();
    if (this.#tx !== null) this.#tx.markdown = text;
    return text;
  }
  writeMarkdown(text: string): void {
    const tx = this.#tx;
    if (tx === null) return this.inner.writeMarkdown(text);
    const old = tx.markdown ?? this.inner.markdown();
    this.inner.writeMarkdown(text);
    tx.markdown = text;
    // Sections by ordinal: those whose text changed, and those past the new last.
    const before = markdownSections(old);
    const after = markdownSections(text);
    after.forEach((section, i) => {
      if (before[i]?.index !== section.index) tx.put(sectionKey(i), `section-${i}`, section.index);
    });
    for (let i = after.length; i < before.length; i++) tx.drop(sectionKey(i));
  }

  idempotency(key: string): IdempotencyRecord | null {
    return this.inner.idempotency(key);
  }
  recordIdempotency(record: IdempotencyRecord): void {
    this.inner.recordIdempotency(record);
  }
  pruneIdempotency(cutoff: number): number {
    return this.inner.pruneIdempotency(cutoff);
  }
  oldestIdempotency(): number | null {
    return this.inner.oldestIdempotency();
  }

  sourceByNormalizedUrl(normalized: string): SourceRow | null {
    return this.inner.sourceByNormalizedUrl(normalized);
  }
  insertSource(source: NewSource): number {
    const seq = this.inner.insertSource(source);
    this.#tx?.put(sourceKey(seq), `source-${seq}`, sourceText(source).index);
    return seq;
  }
  insertFile(file: NewFile): number {
    const seq = this.inner.insertFile(file);
    this.#tx?.put(fileKey(seq), `file-${seq}`, fileText(file).index);
    return seq;
  }
  attachments(kind: "sources", after: number, limit: number): SourceRow[];
  attachments(kind: "files", after: number, limit: number): FileRow[];
  attachments(kind: AttachmentKind, after: number, limit: number): SourceRow[] | FileRow[] {
    return this.inner.attachments(kind, after, limit);
  }
  removeSource(seq: number): void {
    this.inner.removeSource(seq);
    this.#tx?.drop(sourceKey(seq));
  }
  restoreSource(source: SourceRow): void {
    this.inner.restoreSource(source);
    this.#tx?.put(sourceKey(source.seq), `source-${source.seq}`, sourceText(source).index);
  }
  removeFile(seq: number): void {
    this.inner.removeFile(seq);
    this.#tx?.drop(fileKey(seq));
  }
  restoreFile(file: FileRow): void {
    this.inner.restoreFile(file);
    this.#tx?.put(fileKey(file.seq), `file-${file.seq}`, fileText(file).index);
  }
  attachment(kind: "sources", seq: number): SourceRow | null;
  attachment(kind: "files", seq: number): FileRow | null;
  attachment(kind: AttachmentKind, seq: number): SourceRow | FileRow | null {
    return kind === "sources" ? this.inner.attachment("sources", seq) : this.inner.attachment("files", seq);
  }

  recordChange(entry: ChangeEntry, undo?: ChangeUndo | null): void {
    this.inner.recordChange(entry, undo);
  }
  dropChange(version: number): void {
    // Only a trash's items go with it: they are not indexed.
    this.inner.dropChange(version);
  }
  change(version: number): { entry: ChangeEntry; undo: ChangeUndo | null } | null {
    return this.inner.change(version);
  }
  changePage(version: number, limit: number): { entry: ChangeEntry; touch: ChangeTouch | null }[] {
    return this.inner.changePage(version, limit);
  }
  lastTouches(keys: readonly string[]): Map<string, number> {
    return this.inner.lastTouches(keys);
  }
  writeTouches(writes: readonly (readonly [string, number])[]): void {
    this.inner.writeTouches(writes);
  }
  pruneTouches(version: number): number {
    return this.inner.pruneTouches(version);
  }
  touchesSince(version: number): { version: number; touch: ChangeTouch | null }[] {
    return this.inner.touchesSince(version);
  }
  changesSince(version: number, limit: number): ChangeEntry[] {
    return this.inner.changesSince(version, limit);
  }
  oldestChange(): number | null {
    return this.inner.oldestChange();
  }
  takeCommittedChanges(): ChangeEntry[] {
    return this.inner.takeCommittedChanges();
  }

  queueDirectoryEntry(user: string, entry: DirectoryEntry, when: DirectoryWhen = "now"): void {
    if (this.#tx === null) return this.inner.queueDirectoryEntry(user, entry, when);
    this.#tx.pending.push({ user, entry: { ...entry }, when });
  }
  queuedDirectoryEntries(): DirectoryWhen | null {
    return this.inner.queuedDirectoryEntries();
  }
  owedDirectoryEntries(): OwedEntry[] {
    return this.inner.owedDirectoryEntries();
  }
  directoryEntryDelivered(seq: number): void {
    this.inner.directoryEntryDelivered(seq);
  }
  dropDirectoryEntries(): void {
    if (this.#tx !== null) this.#tx.pending = [];
    this.inner.dropDirectoryEntries();
  }
  owesDirectoryEntries(): boolean {
    return this.inner.owesDirectoryEntries();
  }

  searchPut(doc: IndexDoc): void {
    this.inner.searchPut(doc);
  }
  searchDrop(key: number): void {
    this.inner.searchDrop(key);
  }
  searchQuery(terms: readonly (readonly string[])[], after: SearchAfter | null, limit: number): ScoredDoc[] {
    return this.inner.searchQuery(terms, after, limit);
  }
  searchDocs(keys: readonly number[]): IndexDoc[] {
    return this.inner.searchDocs(keys);
  }
  searchDump(): IndexDoc[] {
    return this.inner.searchDump();
  }
}

/** A deck's slides or a Sheet's rows, each write also the item's document (none for an item in a trash tab). */
class IndexedSequence<T extends Item> implements Sequence<T> {
  constructor(
    private readonly inner: Sequence<T>,
    private readonly kind: Kind,
    private readonly tx: () => Tx | null,
  ) {}

  #put(tx: Tx, item: T): void {
    tx.put(DOCS[this.kind].key(item.id), item.id, DOCS[this.kind].index(item));
  }
  #remember(tx: Tx, item: Keyed<T>, tabId: string): void {
    tx.items[this.kind].set(item.id, { ...item, tab_id: tabId });
  }
  /** A write to the tab: its whole list, if read, is no longer what it holds. */
  #wrote(tx: Tx, ...tabIds: string[]): void {
    for (const tabId of tabIds) tx.lists[this.kind].delete(tabId);
  }
  #list(tx: Tx, tabId: string): Keyed<Item>[] {
    return tx.lists[this.kind].get(tabId) ?? this.inner.all(tabId);
  }

  all(tabId: string): Keyed<T>[] {
    const items = this.inner.all(tabId);
    this.tx()?.lists[this.kind].set(tabId, items.map((item) => ({ ...item })));
    return items;
  }
  page(tabId: string, after: number | null, limit: number): Keyed<T>[] {
    return this.inner.page(tabId, after, limit);
  }
  find(id: string): (Keyed<T> & { tab_id: string }) | null {
    const found = this.inner.find(id);
    const tx = this.tx();
    if (tx !== null && found !== null) this.#remember(tx, found, found.tab_id);
    return found;
  }
  lastKey(tabId: string): number | null {
    return this.inner.lastKey(tabId);
  }
  keyAfter(tabId: string, key: number | null): number | null {
    return this.inner.keyAfter(tabId, key);
  }
  itemBefore(tabId: string, key: number): Keyed<T> | null {
    return this.inner.itemBefore(tabId, key);
  }
  insert(tabId: string, items: readonly Keyed<T>[]): void {
    this.inner.insert(tabId, items);
    const tx = this.tx();
    if (tx === null) return;
    this.#wrote(tx, tabId);
    tx.emptied[this.kind].delete(tabId);
    for (const item of items) {
      this.#remember(tx, item, tabId);
      if (!isTrash(tabId)) this.#put(tx, item);
    }
  }
  update(tabId: string, item: Keyed<T>): void {
    const tx = this.tx();
    if (tx === null) return this.inner.update(tabId, item);
    const known = tx.items[this.kind].get(item.id);
    this.inner.update(tabId, item);
    this.#wrote(tx, tabId);
    // A move changes the key only: the document stays as it is.
    const same = known !== undefined && known.tab_id === tabId && DOCS[this.kind].index(known) === DOCS[this.kind].index(item);
    if (!isTrash(tabId) && !same) this.#put(tx, item);
    this.#remember(tx, item, tabId);
  }
  remove(tabId: string, id: string): void {
    this.inner.remove(tabId, id);
    const tx = this.tx();
    if (tx === null) return;
    this.#wrote(tx, tabId);
    tx.items[this.kind].delete(id);
    if (!isTrash(tabId)) tx.drop(DOCS[this.kind].key(id));
  }
  clear(tabId: string): void {
    const tx = this.tx();
    if (tx !== null && !isTrash(tabId) && !tx.emptied[this.kind].has(tabId)) {
      for (const item of this.#list(tx, tabId)) tx.drop(DOCS[this.kind].key(item.id));
    }
    this.inner.clear(tabId);
    if (tx === null) return;
    this.#wrote(tx, tabId);
    tx.emptied[this.kind].add(tabId);
  }
  retab(from: string, to: string, ids: readonly string[] | null): void {
    const tx = this.tx();
    if (tx === null) return this.inner.retab(from, to, ids);
    const leaving = !isTrash(from) && isTrash(to);
    const coming = isTrash(from) && !isTrash(to);
    // What moves: the IDs given, or the tab's whole list (read once, when the rules have not just read it).
    let moving: Keyed<Item>[] | null = null;
    if (ids === null) moving = leaving || coming ? this.#list(tx, from) : null;
    else if (coming) {
      moving = ids.flatMap((id) => {
        const known = tx.items[this.kind].get(id);
        const item = known !== undefined && known.tab_id === from ? known : this.inner.find(id);
        return item !== null && item.tab_id === from ? [item] : [];
      });
    }
    this.inner.retab(from, to, ids);
    this.#wrote(tx, from, to);
    if (ids === null) tx.emptied[this.kind].add(from);
    tx.emptied[this.kind].delete(to);
    if (leaving) for (const id of ids ?? (moving ?? []).map((item) => item.id)) tx.drop(DOCS[this.kind].key(id));
    if (coming) for (const item of moving ?? []) tx.put(DOCS[this.kind].key(item.id), item.id, DOCS[this.kind].index(item));
    for (const item of moving ?? []) this.#remember(tx, item as Keyed<T>, to);
    if (ids !== null && moving === null) {
      for (const id of ids) {
        const known = tx.items[this.kind].get(id);
        if (known !== undefined) known.tab_id = to;
      }
    }
  }
}
