/**
 * The Note's own argument checks, the last word on every write and read
 * (docs/decisions.md, "One validation at the edge"). The edge declares the
 * same fields once in zod (src/edge/fields.ts) and refuses a bad call before
 * it reaches a Note; these run again where the rules live, over values of any
 * type, so a caller that skipped the edge (the simulations, an RPC client, a
 * bug) cannot write what the edge would refuse. The problems' words are here,
 * and the edge tells them in the same words.
 *
 * A length is counted in UTF-16 code units, as JavaScript's `length` counts
 * and as every limit of LIMITS counts text: most characters are one unit, an
 * emoji or another character beyond U+FFFF two. The messages say so.
 */
import { fieldPath, invalidArguments, limitExceeded, type Issue, type NoteError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { fail, type Result } from "./result.js";
import { invisible, loneSurrogateAt, notWellFormed } from "./unicode.js";

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
/** Control characters but tab, line feed and carriage return. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Every line break, Unicode's line and paragraph separators too. */
const LINE_BREAK = /[\r\n\u2028\u2029]/;

export const SLIDE_FIELDS = ["title", "body", "notes"] as const;

/** Characters that change nothing a person sees in a name, or the order it shows in: zero-width spaces and joiners' kin, marks of direction. */
const HIDDEN_IN_NAME = /[\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** What a text field allows besides its length. */
export interface TextRules {
  required?: boolean;
  nonBlank?: boolean;
  oneLine?: boolean;
  /** An identifier: no spaces at either end, which would make "bob " another user than "bob". */
  trimmed?: boolean;
  /** A name a cell is found by (a column's): in NFC form, with no zero-width or text-direction characters. */
  name?: boolean;
}

/** The problems as the Note and the edge word them. */
export const PROBLEMS = {
  blank: "must not be empty or blank (spaces and invisible characters only)",
  empty: "must not be empty",
  oneLine: "must be one line",
  trimmed: "must not start or end with spaces",
  printableAscii: "must be printable ASCII characters (space to ~)",
  hiddenInName: "must not contain zero-width or text-direction characters",
  /** A cell's key longer than any column's name. */
  noColumnName: `is no column name (at most ${LIMITS.columnNameLength} UTF-16 code units)`,
  /** Text over its limit, counted as the limit counts it. */
  tooLong: (max: number, length: number): string => `at most ${max} UTF-16 code units (got ${length})`,
  /** A field the operation does not take, naming those it does. */
  unexpectedField: (names: readonly string[]): string =>
    names.length === 0 ? "unexpected field; this takes no fields" : `unexpected field; the fields here are: ${names.join(", ")}`,
} as const;

/** The first control character of `text` (but tab and line breaks), named by its code point and index. */
function controlCharacterAt(text: string): string | null {
  const at = text.search(CONTROL);
  if (at < 0) return null;
  const code = text.charCodeAt(at).toString(16).toUpperCase().padStart(4, "0");
  return `must not contain control characters (U+${code} at index ${at})`;
}

/**
 * What is wrong with the characters of a text within its length, or null:
 * a lone surrogate, a control character, blank text, a line break, spaces at
 * either end, a name's hidden characters or another normal form. The edge
 * and the Note ask this same question.
 */
export function characterProblem(value: string, rules: TextRules): string | null {
  const surrogate = loneSurrogateAt(value);
  if (surrogate >= 0) return notWellFormed(surrogate);
  // A control character is named where it is, even when nothing else is there ("\u0007" alone is not "blank").
  const control = controlCharacterAt(value);
  if (control !== null) return control;
  if (rules.nonBlank === true && invisible(value)) return PROBLEMS.blank;
  if (rules.oneLine === true && LINE_BREAK.test(value)) return PROBLEMS.oneLine;
  if (rules.trimmed === true && value.trim() !== value) return PROBLEMS.trimmed;
  if (rules.name === true) {
    // A cell names its column by exact text: two names that look alike would let a model write into the wrong one.
    if (value.normalize("NFC") !== value) return `must be in Unicode NFC form (${JSON.stringify(value.normalize("NFC"))})`;
    if (HIDDEN_IN_NAME.test(value)) return PROBLEMS.hiddenInName;
  }
  return null;
}

/** The idempotency key's rule: 1 to 256 printable ASCII characters. */
function idempotencyKeyProblem(key: string): string | null {
  if (key.length === 0) return PROBLEMS.empty;
  if (key.length > LIMITS.idempotencyKeyLength) return PROBLEMS.tooLong(LIMITS.idempotencyKeyLength, key.length);
  return PRINTABLE_ASCII.test(key) ? null : PROBLEMS.printableAscii;
}

/** A column's name: the rules a name a cell is found by keeps. */
const COLUMN_NAME: TextRules = { required: true, nonBlank: true, oneLine: true, trimmed: true, name: true };

export class Checks {
  readonly issues: Issue[] = [];
  /** The first limit a well-formed argument passed (a Sheet's sizes): told only when nothing else is wrong. */
  #limit: NoteError | null = null;

  add(path: string, problem: string): void {
    this.issues.push({ path, problem });
  }

  /** A limit of the README's table passed: `limit_exceeded` naming it, unless an argument is also malformed. */
  limit(name: string, max: number, what: string): void {
    this.#limit ??= limitExceeded(name, max, what);
  }

  /** `invalid_arguments` naming every issue found, else the limit passed, or null when all is well. */
  failure(): Result<never> | null {
    if (this.issues.length > 0) return fail(invalidArguments(this.issues));
    return this.#limit === null ? null : fail(this.#limit);
  }

  /** A text field: within `max` UTF-16 code units, then its characters (characterProblem). */
  text(path: string, value: unknown, max: number, rules: TextRules = {}): void {
    if (value === undefined) {
      if (rules.required === true) this.add(path, "required");
      return;
    }
    if (typeof value !== "string") return this.add(path, "must be a string");
    if (value.length > max) return this.add(path, PROBLEMS.tooLong(max, value.length));
    const problem = characterProblem(value, rules);
    if (problem !== null) this.add(path, problem);
  }

  integer(path: string, value: unknown, min: number, max: number, required = false): void {
    if (value === undefined) {
      if (required) this.add(path, "required");
      return;
    }
    if (typeof value !== "number" || !Number.isInteger(value)) this.add(path, "must be a whole number");
    else if (value < min) this.add(path, `must be at least ${min}`);
    else if (value > max) this.add(path, `must be at most ${max}`);
  }

  boolean(path: string, value: unknown): void {
    if (typeof value !== "boolean") this.add(path, value === undefined ? "required" : "must be true or false");
  }

  oneOf(path: string, value: unknown, allowed: readonly string[], required = true): void {
    if (value === undefined && !required) return;
    if (typeof value !== "string" || !allowed.includes(value)) this.add(path, `must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  }

  /** Refuses every field but those named: the Note keeps nothing it was not asked to. */
  onlyFields(input: Readonly<Record<string, unknown>>, names: readonly string[], prefix = ""): void {
    let told = false;
    for (const name of Object.keys(input)) {
      if (names.includes(name)) continue;
      // The first names the fields taken, as the edge tells it; the others say only what they are.
      this.add(`${prefix}${name}`, told ? "unexpected field" : PROBLEMS.unexpectedField(names));
      told = true;
    }
  }

  /** The fields every agent write carries: the version it read, and the key that names its intent. */
  writeFields(input: Readonly<Record<string, unknown>>): void {
    this.integer("expected_version", input.expected_version, 1, Number.MAX_SAFE_INTEGER, true);
    const key = input.idempotency_key;
    if (key === undefined) this.add("idempotency_key", "required");
    else if (typeof key !== "string") this.add("idempotency_key", "must be a string");
    else {
      const problem = idempotencyKeyProblem(key);
      if (problem !== null) this.add("idempotency_key", problem);
    }
  }

  /** A list of slides, between `min` and `max` of them. */
  slides(path: string, value: unknown, min: number, max: number): void {
    if (!Array.isArray(value)) return this.add(path, value === undefined ? "required" : "must be a list of slides");
    if (value.length < min) this.add(path, `at least ${min} slide${min === 1 ? "" : "s"}`);
    if (value.length > max) return this.add(path, `at most ${max} slides (got ${value.length})`);
    value.forEach((slide: unknown, i) => {
      if (typeof slide !== "object" || slide === null || Array.isArray(slide)) return this.add(`${path}[${i}]`, "must be a slide: {title, body?, notes?}");
      this.onlyFields(slide as Record<string, unknown>, SLIDE_FIELDS, `${path}[${i}].`);
      this.slide(slide as Record<string, unknown>, `${path}[${i}].`);
    });
  }

  /**
   * A slide's fields, named `${prefix}title` and so on: "slides[2]." in a list,
   * "" for a call's own fields. An update (`titleRequired` false) keeps the title it leaves out.
   */
  slide(slide: Readonly<Record<string, unknown>>, prefix = "", titleRequired = true): void {
    this.text(`${prefix}title`, slide.title, LIMITS.slideTitleLength, { required: titleRequired, nonBlank: true });
    this.text(`${prefix}body`, slide.body, LIMITS.slideBodyLength);
    this.text(`${prefix}notes`, slide.notes, LIMITS.slideNotesLength);
  }

  label(path: string, label: unknown, required: boolean): void {
    this.text(path, label, LIMITS.tabLabelLength, { required, nonBlank: true, oneLine: true });
  }

  tabId(path: string, value: unknown): void {
    this.text(path, value, LIMITS.tabIdLength, { required: true, nonBlank: true });
  }

  /** A slide's or a row's ID as given; `nullable` for after_id, where null means "first". */
  itemId(path: string, value: unknown, nullable = false): void {
    if (nullable && value === null) return;
    if (typeof value === "number") return this.add(path, "must be a slide or row ID (a string such as \"slide-12-mh8z1k2a\"), not an index");
    this.text(path, value, LIMITS.itemIdLength, { required: true, nonBlank: true });
  }

  /** A list of new column names, between `min` and `max` of them, none given twice. */
  columns(path: string, value: unknown, min: number, max: number): void {
    if (!Array.isArray(value)) return this.add(path, value === undefined ? "required" : "must be a list of column names");
    if (value.length < min) this.add(path, `at least ${min} column${min === 1 ? "" : "s"}`);
    if (value.length > max) return this.limit("columns_per_sheet", max, `${path} names ${value.length} columns`);
    const seen = new Set<unknown>();
    value.forEach((name: unknown, i) => {
      this.text(`${path}[${i}]`, name, LIMITS.columnNameLength, COLUMN_NAME);
      // A row's cells are an object keyed by column name: JSON objects cannot keep this one.
      if (name === "__proto__") this.add(`${path}[${i}]`, 'cannot be "__proto__"');
      if (seen.has(name)) this.add(`${path}[${i}]`, `${JSON.stringify(name)} is given twice`);
      seen.add(name);
    });
  }

  /** A list of rows, between `min` and `max` of them, each a row's cells. */
  rows(path: string, value: unknown, min: number, max: number): void {
    if (!Array.isArray(value)) return this.add(path, value === undefined ? "required" : "must be a list of rows, each an object of cells by column name");
    if (value.length < min) this.add(path, `at least ${min} row${min === 1 ? "" : "s"}`);
    if (value.length > max) return this.limit("rows_per_call", max, `${path} holds ${value.length} rows; send them in calls of at most ${max}`);
    value.forEach((row: unknown, i) => this.cells(`${path}[${i}]`, row, false));
  }

  /**
   * A row's cells: an object of at least one cell by column name, each text
   * or a finite number (or, where `nullable`, null to empty it). Whether each
   * name is a column of the Sheet is checked once the Sheet is found.
   */
  cells(path: string, value: unknown, nullable: boolean): void {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return this.add(path, value === undefined ? "required" : "must be an object of cells by column name, e.g. {\"Name\": \"Ada\", \"Age\": 36}");
    }
    const names = Object.keys(value);
    if (names.length === 0) return this.add(path, "at least one cell");
    if (names.length > LIMITS.columnsPerSheet) return this.add(path, `at most ${LIMITS.columnsPerSheet} cells, one a column`);
    for (const name of names) {
      const at = fieldPath(path, name);
      const cell = (value as Record<string, unknown>)[name];
      if (name.length > LIMITS.columnNameLength) this.add(at, PROBLEMS.noColumnName);
      else if (typeof cell === "number") {
        if (!Number.isFinite(cell)) this.add(at, "must be a finite number");
      } else if (typeof cell === "string") {
        if (cell.length > LIMITS.cellLength) this.limit("cell_length", LIMITS.cellLength, `${at} holds ${cell.length} UTF-16 code units`);
        else this.text(at, cell, LIMITS.cellLength);
      }
      else if (!(nullable && cell === null)) this.add(at, nullable ? "must be text, a number, or null to empty the cell" : "must be text or a number");
    }
  }
}

/** For an operation that takes no arguments: an empty object, or the failure naming what should not be there. */
export function noFields(input: unknown): Result<Record<string, unknown>> {
  const given = fields(input);
  if (!given.ok) return given;
  const checks = new Checks();
  checks.onlyFields(given.value, []);
  return checks.failure() ?? given;
}

/** The arguments as an object of fields, or the failure that says they are not one. */
export function fields(input: unknown): Result<Record<string, unknown>> {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) return { ok: true, value: input as Record<string, unknown> };
  return fail(invalidArguments([{ path: "(arguments)", problem: "must be an object of named fields" }]));
}
