/**
 * What the rest of src/ may import from the Note's rules. Tests and the
 * simulations reach further in; the Worker's code comes through here.
 */
export { CHANGES_KEPT, type ChangeEntry } from "./changes.js";
export { AGENT_EDITS, KEYED_COMMANDS, type Caller, type ChangePage, type CommandName, type CreatedTab, type EditedTab, type Input, type Output, type SlideOutput, type TabContent, type TabEditName, type WholeNote } from "./commands.js";
export { ITEMS_CURSOR_LENGTH, decodeNotesCursor, decodeNotesSearchCursor, encodeNotesCursor, encodeNotesSearchCursor, type AttachmentKind, type NotesSearchCursor } from "./cursor.js";
export { foldTitle, type DirectoryEntry } from "./directory.js";
export { fieldPath, invalidArguments, type Issue, type NoteError } from "./errors.js";
export { DEFAULT_RETENTION_MS, LIMITS } from "./limits.js";
export { Note } from "./note.js";
export { fail, ok, type Result } from "./result.js";
export { type ScoredDoc, type SearchAfter, type Cells, type ChangeUndo, type FileRow, type IdempotencyRecord, type Keyed, type NewFile, type NewSource, type NoteMeta, type NoteStore, type OwedEntry, type DirectoryWhen, type RecordedResult, type Sequence, type SheetRow, type Slide, type SourceRow, type TabRow } from "./store.js";
export { newSlideId, type TabType } from "./tabs/ids.js";
export { clip, invisible } from "./unicode.js";
export { trashOf, type ChangeDetail, type ChangeTouch, type Reverting, type RevertedChange, type UndoStep } from "./undo.js";
export { PROBLEMS, characterProblem, type TextRules } from "./validate.js";
export { type SearchHit, type SearchPage } from "./search/contract.js";
export { checkSearchLimit, checkSearchQuery } from "./search/query.js";
export { Checks } from "./validate.js";
export { matchExpression, termsExpression } from "./search/text.js";
export { noteDocuments, type IndexDoc } from "./search/documents.js";
export { wholeIndexEntries } from "./search/indexed-store.js";
