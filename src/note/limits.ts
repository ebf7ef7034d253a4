/**
 * Every limit of the connector in one place: the zod schemas at the edge and
 * the Note's own checks read the same numbers, and the README states them.
 */
export const LIMITS = {
  /** Largest JSON body accepted by POST /mcp, in bytes. */
  mcpBodyBytes: 256 * 1024,
  /** Largest JSON body accepted by the person's API, in bytes. */
  apiBodyBytes: 1024 * 1024,
  noteIdLength: 64,
  noteTitleLength: 200,
  tabLabelLength: 100,
  /** A tab ID as a caller may spell it; real IDs are far shorter. */
  tabIdLength: 100,
  slideTitleLength: 300,
  slideBodyLength: 10_000,
  slideNotesLength: 10_000,
  /** Slides one create or outline call may carry. */
  slidesPerCall: 20,
  slidesPerTab: 500,
  /** A slide or row ID as a caller may spell it; real IDs are far shorter. */
  itemIdLength: 100,
  /** A Sheet's columns, and so the cells of one row. */
  columnsPerSheet: 50,
  columnNameLength: 100,
  /** Characters of one cell's text; a number cell is any finite number. */
  cellLength: 2_000,
  /** Rows one create or rows_append call may carry. */
  rowsPerCall: 500,
  rowsPerSheet: 10_000,
  /** Rows per page of read_note_tab on a Sheet (and its default, 100). */
  rowsPageSize: 500,
  rowsPageDefault: 100,
  /** Entries per page of list_note_changes (and its default, 50). */
  changesPageSize: 200,
  changesPageDefault: 50,
  /**
   * A page of slides or rows stops early (never before its first item) once
   * their text passes this many characters, so one answer, which carries the
   * page twice (text and structured), stays what a client can take.
   */
  pageChars: 250_000,
  /**
   * The person's read of a whole Note answers its decks' text and its Markdown
   * up to this many characters; past it, limit_exceeded (read the tabs a page
   * at a time). Well within what the object may hand the Worker in one answer.
   */
  wholeNoteChars: 4_000_000,
  /** Slides and Sheet tabs per Note (the three fixed tabs are not counted). */
  tabsPerNote: 100,
  sourcesPerNote: 100_000,
  filesPerNote: 10_000,
  sourceTitleLength: 500,
  sourceDescriptionLength: 2_000,
  urlLength: 2_048,
  fileNameLength: 255,
  mediaTypeLength: 255,
  fileSizeBytes: 2 ** 40,
  markdownLength: 500_000,
  idempotencyKeyLength: 256,
  userIdLength: 128,
  pageSize: 50,
  /** Slides per page of read_note_tab (and its default): 50 slides at their longest are about 1 M characters. */
  slidesPageSize: 50,
  /** Notes per page of list_notes and GET /api/v1/notes (and its default). */
  notesPageSize: 100,
  /** A search query's characters (docs/search.md). */
  searchQueryLength: 1_000,
  /** Hits per page of search (and its default). */
  searchPageSize: 50,
  searchPageDefault: 10,
  /** A search cursor as a caller may send it (the edge's bound; the cursor's own check is where it is decoded). */
  searchCursorLength: 512,
  /** A list_notes cursor as a caller may send it: a Note ID of 64 characters gives one of 107. */
  notesCursorLength: 160,
} as const;

/** Default retention of idempotency records: 7 days. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
