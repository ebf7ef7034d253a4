/**
 * The field rules of both doors, declared once: the MCP tools' arguments
 * (src/mcp/schemas.ts) and the person's API bodies and queries
 * (src/http/api.ts) are built from these zod schemas, so the two refuse the
 * same bad value with the same words. The numbers come from LIMITS by name;
 * the words and the character rules from the Note's own checks
 * (src/note/validate.ts), which run again behind the edge as the last word
 * (docs/decisions.md, "One validation at the edge").
 *
 * Text is counted in UTF-16 code units, as every limit counts it, and the
 * messages say so: "at most 300 UTF-16 code units (got 301)".
 */
import { z } from "zod";
import { fieldPath, invalidArguments, type Issue, LIMITS, characterProblem, PROBLEMS, type TextRules, type Result } from "../note/index.js";
import { PROBLEM_NO_WORD } from "../note/search/query.js";
import { queryTerms } from "../note/search/text.js";

const NOTE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** A text field's rules at the edge: its bounds, the Note's character rules, and what a value of another type is told. */
interface TextField extends Omit<TextRules, "required"> {
  /** 1: must not be empty (blank too, with nonBlank). */
  min?: 1;
  /** In UTF-16 code units. */
  max?: number;
  /** The problem for a value that is not text (default: "expected string"). */
  wrongType?: string;
}

/**
 * A text field: within its bounds, then well-formed Unicode with no control
 * characters but tab and line breaks, and the field's own rules
 * (characterProblem, the Note's question in the Note's words). The bounds
 * stay zod checks so that tools/list's JSON Schema states them.
 */
function text({ min, max, wrongType, ...rules }: TextField = {}): z.ZodString {
  let schema = z.string(wrongType === undefined ? undefined : { error: wrongType });
  if (min === 1) schema = schema.min(1, { error: rules.nonBlank === true ? PROBLEMS.blank : PROBLEMS.empty, abort: true });
  if (max !== undefined) schema = schema.max(max, { error: (issue) => PROBLEMS.tooLong(max, lengthOf(issue.input)), abort: true });
  return schema.superRefine((value, ctx) => {
    const problem = characterProblem(value, rules);
    if (problem !== null) ctx.addIssue({ code: "custom", message: problem });
  });
}

const lengthOf = (input: unknown): number => (typeof input === "string" ? input.length : 0);

/**
 * A closed object: a field it does not declare is refused, and the refusal
 * names the fields it takes, so a model fixes a misspelt name in one go.
 */
export function closed<T extends z.core.$ZodLooseShape>(shape: T): z.ZodObject<T, z.core.$strict> {
  const told = PROBLEMS.unexpectedField(Object.keys(shape));
  return z.strictObject(shape, { error: (issue) => (issue.code === "unrecognized_keys" ? told : undefined) });
}

// IDs.

export const noteId = z
  .string()
  .min(1, { error: PROBLEMS.empty, abort: true })
  .max(LIMITS.noteIdLength, { error: (issue) => PROBLEMS.tooLong(LIMITS.noteIdLength, lengthOf(issue.input)), abort: true })
  .regex(NOTE_ID_PATTERN, "must be letters, digits, '-' or '_', starting with a letter or digit");

/** A tab's ID as a caller may spell it; whether a tab has it is the Note's to say. */
export const tabId = text({ min: 1, max: LIMITS.tabIdLength, nonBlank: true });

/** A slide's or a row's exact ID: an index given instead is told what to send. */
export const itemId = (what: "slide" | "row") =>
  text({ min: 1, max: LIMITS.itemIdLength, nonBlank: true, wrongType: `must be the ${what}'s ID as text, e.g. "${what}-12-mh8z1k2a" (an index is not an ID)` });

export const expectedVersion = z.int().min(1);

export const idempotencyKey = z
  .string()
  .min(1, { error: PROBLEMS.empty, abort: true })
  .max(LIMITS.idempotencyKeyLength, { error: (issue) => PROBLEMS.tooLong(LIMITS.idempotencyKeyLength, lengthOf(issue.input)), abort: true })
  .regex(/^[\x20-\x7e]+$/, PROBLEMS.printableAscii);

export const userId = text({ min: 1, max: LIMITS.userIdLength, nonBlank: true, oneLine: true, trimmed: true });

// Titles, labels and other text.

export const noteTitle = text({ min: 1, max: LIMITS.noteTitleLength, nonBlank: true, oneLine: true });
export const tabLabel = text({ min: 1, max: LIMITS.tabLabelLength, nonBlank: true, oneLine: true });
export const markdown = text({ max: LIMITS.markdownLength });
export const sourceTitle = text({ min: 1, max: LIMITS.sourceTitleLength, nonBlank: true });
export const sourceDescription = text({ max: LIMITS.sourceDescriptionLength });
export const fileName = text({ min: 1, max: LIMITS.fileNameLength, nonBlank: true });
export const mediaType = text({ min: 1, max: LIMITS.mediaTypeLength, nonBlank: true });
/** list_notes' (and GET /notes') filter: a fragment of a title. */
export const titleFilter = text({ min: 1, max: LIMITS.noteTitleLength });
/** A cursor from an earlier page, exactly as it came. */
export const cursor = (max: number) => text({ min: 1, max });

// Search (docs/spec.md §11).

/**
 * A search query: words to find, taken as text (FTS5's syntax in it is only
 * characters); blank is refused, as is a lone surrogate or a control character.
 */
export const searchQuery = text({ min: 1, max: LIMITS.searchQueryLength, nonBlank: true }).refine(
  // Told once: text refused for its characters is not also told it holds no word.
  (query) => characterProblem(query, { nonBlank: true }) !== null || queryTerms(query).length > 0,
  { error: PROBLEM_NO_WORD },
);

/** The longest hit ID: a Note ID, a tab ID and an item ID, with the two slashes between them. */
export const HIT_ID_LENGTH = LIMITS.noteIdLength + LIMITS.tabIdLength + LIMITS.itemIdLength + 2;

/**
 * A hit's ID as `search` answers it (src/note/search/contract.ts, SearchHit.id):
 * a Note ID, then up to two more parts after a '/'. What the parts name is
 * the Note's to say (an ID it does not have is not found, not malformed).
 */
export const hitId = text({ min: 1, max: HIT_ID_LENGTH, nonBlank: true, oneLine: true }).refine(
  (id) => {
    if (characterProblem(id, { nonBlank: true, oneLine: true }) !== null) return true;
    const [note, ...rest] = id.split("/");
    return noteId.safeParse(note).success && rest.length <= 2 && rest.every((part) => part !== "" && part.trim() === part);
  },
  { error: 'must be a hit\'s id exactly as search answered it: the Note\'s ID, then up to two parts after "/", e.g. "note-1/slides-9-mh8z1k2a/slide-12-mh8z1k2a"' },
);

// Slides.

export const slideTitle = text({ min: 1, max: LIMITS.slideTitleLength, nonBlank: true });
export const slideBody = text({ max: LIMITS.slideBodyLength });
export const slideNotes = text({ max: LIMITS.slideNotesLength });

const slide = closed({
  title: slideTitle.describe("The slide's title."),
  body: slideBody.optional().describe("The slide's text, plain or Markdown."),
  notes: slideNotes.optional().describe("Speaker notes."),
});

/** Between `min` and `max` slides. */
export const slides = (min: number, max: number) => z.array(slide).min(min).max(max);

// A Sheet's columns and cells. Its sizes (cells, rows per call, columns, a cell's length) are limits the Note answers with limit_exceeded naming each, not bounds here.

const columnName = text({ min: 1, max: LIMITS.columnNameLength, nonBlank: true, oneLine: true, trimmed: true, name: true });
export const columns = z.array(columnName).min(1);

// Without a message of its own a union answers "Invalid input", which tells a model nothing to fix.
const cell = z.union([text(), z.number()], { error: "must be text or a finite number" });
/** A cell of row_update: null empties it. */
export const cellOrNull = z.union([cell, z.null()], { error: "must be text, a finite number, or null to empty the cell" });

/** Cells by column name; a name no column can have is refused as the Note words it. */
export const cellsOf = <T extends z.ZodType>(value: T) =>
  // A closed object refuses an own "__proto__" key (JSON can carry one) as unexpected; a map would drop it silently.
  z.preprocess(
    (given, ctx) => {
      if (typeof given === "object" && given !== null && Object.hasOwn(given, "__proto__")) {
        ctx.addIssue({ code: "custom", message: 'nothing can be named "__proto__"', path: ["__proto__"], input: given });
      }
      return given;
    },
    z.record(z.string().max(LIMITS.columnNameLength), value, {
      error: (issue) => (issue.code === "invalid_key" ? PROBLEMS.noColumnName : undefined),
    }),
  );

/** Rows as given: each cells by column name, text or numbers; a column left out is an empty cell. */
export const rows = z.array(cellsOf(cell)).min(1);

// Reading the arguments.

/**
 * Arguments (a tool's, or a body or query of the person's API) through their
 * schema: the data, or one `invalid_arguments` error naming every problem.
 */
export function parseArguments<T extends z.ZodType>(schema: T, value: unknown): Result<z.output<T>> {
  // The input in each issue tells "required" (nothing given) from a value of the wrong type.
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return { ok: true, value: parsed.data };
  // invalidArguments lists the first 50 problems and counts the rest.
  return { ok: false, error: invalidArguments(telling(parsed.error.issues).flatMap(toIssues)) };
}

/**
 * The issues worth telling, one problem per field: a value of the wrong type
 * is only that (a list given for a name is not also "at least 1 item"), and of
 * a field's bounds only the tightest (2^60 is "at most 1099511627776", not
 * also the largest safe integer).
 */
function telling(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const byPath = new Map<string, z.core.$ZodIssue[]>();
  for (const issue of issues) {
    const key = JSON.stringify(issue.path);
    byPath.set(key, [...(byPath.get(key) ?? []), issue]);
  }
  return [...byPath.values()].flatMap((same) => {
    const wrongType = same.find((issue) => issue.code === "invalid_type");
    if (wrongType !== undefined) return [wrongType];
    const low = Math.max(...same.map((issue) => (issue.code === "too_small" ? Number(issue.minimum) : -Infinity)));
    const high = Math.min(...same.map((issue) => (issue.code === "too_big" ? Number(issue.maximum) : Infinity)));
    return same.filter(
      (issue) => (issue.code !== "too_small" || Number(issue.minimum) === low) && (issue.code !== "too_big" || Number(issue.maximum) === high),
    );
  });
}

/** zod's own words (a check without a message of ours): "Too big: …", "Invalid input: …". */
const ZOD_WORDS = /^(Too (big|small)|Invalid|Unrecognized)/;

/** One zod issue as the `path: problem` lines of an `invalid_arguments` error. */
export function toIssues(issue: z.core.$ZodIssue): Issue[] {
  const path = formatPath(issue.path);
  const ours = !ZOD_WORDS.test(issue.message);
  switch (issue.code) {
    case "unrecognized_keys":
      // The first names the fields the object takes; the rest of the same object's say only what they are.
      return issue.keys.map((key, i) => ({ path: formatPath([...issue.path, key]), problem: ours && i === 0 ? issue.message : "unexpected field" }));
    case "invalid_type":
      if (issue.input === undefined) return [{ path, problem: "required" }];
      // A number of the wrong kind, in the Note's words: 2.5 where a whole number goes ("expected int" is zod's
      // jargon), or 1e400, which JSON reads as Infinity (not "expected number": it is one).
      if (typeof issue.input === "number" && !ours) {
        if (issue.expected === "int") return [{ path, problem: "must be a whole number" }];
        if (!Number.isFinite(issue.input)) return [{ path, problem: "must be a finite number" }];
      }
      // A schema's own message for a value of the wrong type (zod's default starts "Invalid input").
      return [{ path, problem: ours ? issue.message : `expected ${issue.expected === "record" ? "object" : issue.expected}` }];
    case "invalid_value":
      return [{ path, problem: `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}` }];
    case "too_big":
      if (ours) return [{ path, problem: issue.message }];
      return [{ path, problem: issue.origin === "string" ? PROBLEMS.tooLong(Number(issue.maximum), lengthOf(issue.input)) : `at most ${String(issue.maximum)}${unit(issue.origin, issue.maximum)}` }];
    case "too_small":
      if (ours) return [{ path, problem: issue.message }];
      return [{ path, problem: issue.origin === "string" && issue.minimum === 1 ? PROBLEMS.empty : `at least ${String(issue.minimum)}${unit(issue.origin, issue.minimum)}` }];
    default:
      return [{ path, problem: issue.message }];
  }
}

function unit(origin: string, count: number | bigint): string {
  const one = Number(count) === 1;
  if (origin === "string") return one ? " UTF-16 code unit" : " UTF-16 code units";
  if (origin === "array") return one ? " item" : " items";
  return "";
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) out = typeof part === "number" ? `${out}[${part}]` : fieldPath(out, String(part));
  return out === "" ? "(arguments)" : out;
}
