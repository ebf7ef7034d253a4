/**
 * The person's commands on the Note as a whole (docs/spec.md §7, §8): create it, read
 * it whole, approve it for connectors, add members, set the Markdown text.
 */
import { openNote } from "./pipeline/access.js";
import type { Caller, Input, NoteSummary, WholeNote } from "./commands.js";
import type { NoteContext } from "./context.js";
import { tellMembers } from "./directory.js";
import { logChange } from "./changes.js";
import { invalidArguments, limitExceeded } from "./errors.js";
import { LIMITS } from "./limits.js";
import type { PersonChange } from "./pipeline/person-change.js";
import { fail, ok, type Result } from "./result.js";
import { numbered } from "./tabs/slides.js";
import type { DirectoryEntry, NoteMeta } from "./store.js";
import { FIXED_TAB_LABELS, FIXED_TABS } from "./tabs/ids.js";
import { summary } from "./tabs/find.js";
import { Checks, fields, noFields } from "./validate.js";
import { nextVersion } from "./pipeline/version.js";
import { markdownStep } from "./undo.js";

export function createNote(ctx: NoteContext, caller: Caller, input: unknown): Result<NoteSummary> {
  const given = fields(input);
  if (!given.ok) return given;
  const checks = new Checks();
  checks.onlyFields(given.value, ["title", "markdown"]);
  checks.text("title", given.value.title, LIMITS.noteTitleLength, { required: true, nonBlank: true, oneLine: true });
  checks.text("markdown", given.value.markdown, LIMITS.markdownLength);
  checks.text("user", caller.user, LIMITS.userIdLength, { required: true, nonBlank: true, oneLine: true, trimmed: true });
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const args = given.value as Input<"create_note">;
  const existing = ctx.store.readMeta();
  if (existing?.deleted === true) {
    // Its members' directories have not all dropped it yet; once they have, the object is erased and the ID is free.
    return fail({ code: "note_exists", message: `The Note "${ctx.id}" is being deleted; try again in a minute, or choose another ID.`, note_id: ctx.id });
  }
  if (existing !== null) {
    return fail({ code: "note_exists", message: `A Note "${ctx.id}" already exists; choose another ID.`, note_id: ctx.id });
  }
  const meta: NoteMeta = {
    note_id: ctx.id,
    title: args.title.trim(),
    version: 1,
    approved: false,
    next_tab_n: 1,
    next_slide_n: 1,
    next_row_n: 1,
    tab_count: FIXED_TABS.length,
    source_count: 0,
    file_count: 0,
    created_at: ctx.now(),
    deleted: false,
  };
  ctx.store.writeMeta(meta);
  ctx.store.addMember(caller.user, "owner");
  FIXED_TABS.forEach((type, position) => ctx.store.insertTab({ id: type, type, label: FIXED_TAB_LABELS[type], position, slide_count: 0, row_count: 0, columns: [] }));
  if (args.markdown !== undefined) ctx.store.writeMarkdown(args.markdown);
  logChange(ctx, caller, meta.version, "create_note", {}, { note_title: meta.title });
  tellMembers(ctx.store, meta);
  return ok({ note_id: ctx.id, title: meta.title, approved: false, version: 1 });
}

export function readNote(ctx: NoteContext, caller: Caller, input: unknown): Result<WholeNote> {
  const given = noFields(input);
  if (!given.ok) return given;
  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;
  const markdown = ctx.store.markdown();
  // The decks' text, counted as they are read: past the budget the Note answers no more than the error.
  let chars = markdown.length;
  const tabs: WholeNote["tabs"] = [];
  for (const t of ctx.store.tabs()) {
    if (t.type !== "slides") {
      tabs.push(t.type === "sheet" ? { ...summary(t), columns: t.columns } : summary(t));
      continue;
    }
    const slides = ctx.store.slides.all(t.id);
    for (const slide of slides) chars += slide.title.length + slide.body.length + slide.notes.length;
    if (chars > LIMITS.wholeNoteChars) {
      return fail(limitExceeded("whole_note_chars", LIMITS.wholeNoteChars, `This Note's decks and Markdown are too long to answer in one read; read each tab a page at a time with read_note_tab`));
    }
    tabs.push({ ...summary(t), slides: numbered(slides) });
  }
  return ok({
    note_id: ctx.id,
    title: meta.title,
    approved: meta.approved,
    version: meta.version,
    members: ctx.store.members(),
    markdown,
    tabs,
    source_count: meta.source_count,
    file_count: meta.file_count,
  });
}

/** The person approves the Note for connectors, or revokes it; the members' directories learn it. */
export const SET_APPROVAL: PersonChange<Input<"set_approval">> = {
  name: "set_approval",
  fields: ["approved"],
  validate: (i, checks) => checks.boolean("approved", i.approved),
  apply: (_ctx, meta, i) => (meta.approved === i.approved ? ok("unchanged") : ok({ meta: { ...meta, approved: i.approved } })),
  tellsMembers: true,
};

/** A new member may use the Note in the app and, once it is approved, through connectors. */
export const ADD_MEMBER: PersonChange<Input<"add_member">> = {
  name: "add_member",
  fields: ["user"],
  validate: (i, checks) => {
    checks.text("user", i.user, LIMITS.userIdLength, { required: true, nonBlank: true, oneLine: true, trimmed: true });
    // A URL's path cannot name them (they are dot segments): such a member could never be removed by DELETE …/members/:user.
    if (i.user === "." || i.user === "..") checks.add("user", `"${i.user}" cannot be a user ID: a URL path cannot name it`);
  },
  apply: (ctx, _meta, i) => {
    if (ctx.store.isMember(i.user)) return ok("unchanged");
    ctx.store.addMember(i.user, "editor");
    return ok({ touched: { member: i.user } });
  },
  tellsMembers: true,
};

/**
 * A member loses the Note: their directory drops it, and their open pages
 * close (src/storage/note-object.ts). The last member cannot leave: nobody
 * could use, approve or delete the Note after.
 */
export const REMOVE_MEMBER: PersonChange<Input<"remove_member">> = {
  name: "remove_member",
  fields: ["user"],
  validate: (i, checks) => checks.text("user", i.user, LIMITS.userIdLength, { required: true, nonBlank: true, oneLine: true, trimmed: true }),
  apply: (ctx, meta, i) => {
    if (!ctx.store.isMember(i.user)) return ok("unchanged");
    if (ctx.store.members().length === 1) {
      return fail(invalidArguments([{ path: "user", problem: `${JSON.stringify(i.user)} is the Note's only member; add another before removing them, or delete the Note` }]));
    }
    ctx.store.removeMember(i.user);
    const removal: DirectoryEntry = { note_id: meta.note_id, title: meta.title, approved: meta.approved, version: nextVersion(meta), removed: true };
    ctx.store.queueDirectoryEntry(i.user, removal);
    return ok({ touched: { member: i.user } });
  },
};

/** The person renames the Note; the members' directories (list_notes) show the new title. */
export const RENAME_NOTE: PersonChange<Input<"rename_note">> = {
  name: "rename_note",
  fields: ["title"],
  validate: (i, checks) => checks.text("title", i.title, LIMITS.noteTitleLength, { required: true, nonBlank: true, oneLine: true }),
  apply: (_ctx, meta, i) => {
    const title = i.title.trim();
    if (meta.title === title) return ok("unchanged");
    return ok({ meta: { ...meta, title }, names: { note_title: title, note_title_before: meta.title }, undo: [{ do: "title" as const, before: meta.title, after: title }] });
  },
  tellsMembers: true,
};

/**
 * The person deletes the Note: a tombstone, in this one transaction with the
 * removal queued for every member (directory.ts). From the commit on, every
 * operation answers note_not_found; the object erases its storage once every
 * directory has dropped the Note (src/storage/note-object.ts).
 */
export const DELETE_NOTE: PersonChange<Input<"delete_note">> = {
  name: "delete_note",
  fields: [],
  validate: () => {},
  apply: (_ctx, meta) => ok({ meta: { ...meta, deleted: true }, names: { note_title: meta.title } }),
  tellsMembers: true,
};

export const SET_MARKDOWN: PersonChange<Input<"set_markdown">> = {
  name: "set_markdown",
  fields: ["text"],
  validate: (i, checks) => checks.text("text", i.text, LIMITS.markdownLength, { required: true }),
  apply: (ctx, _meta, i) => {
    const before = ctx.store.markdown();
    if (before === i.text) return ok("unchanged");
    ctx.store.writeMarkdown(i.text);
    return ok({ touched: { tab_id: "markdown" }, undo: [markdownStep(before, i.text)] });
  },
};
