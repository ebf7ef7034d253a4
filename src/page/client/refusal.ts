/**
 * @module
 * The server's refusal in a person's words (no DOM here, so the wording is tested on its own):
 * each field named as the page labels it, lengths in characters, no API terms.
 */

export type ApiError = { code: string; message: string; [key: string]: unknown };

/** What each field the page sends is called on the page. */
const FIELD_NAMES: Record<string, string> = {
  label: "The label",
  title: "The title",
  user: "The user ID",
  text: "The Markdown",
  body: "The body",
  notes: "The speaker notes",
  name: "The name",
  columns: "The column names",
  cells: "The cells",
  url: "The URL",
  description: "The description",
  media_type: "The media type",
  size_bytes: "The size",
};

/** What one item of a list the page sends is called: "Column name 2". */
const ITEM_NAMES: Record<string, string> = { columns: "Column name", slides: "Slide", rows: "Row" };

/** A problem of one field as a person reads it: lengths in characters, no API terms. */
function problemInWords(problem: string): string {
  const tooLong = /^at most (\d+) UTF-16 code units \(got (\d+)\)$/.exec(problem);
  if (tooLong !== null) return `is too long: at most ${tooLong[1]} characters (it has ${tooLong[2]})`;
  if (problem.startsWith("must not be empty or blank")) return "must not be empty";
  const control = /^must not contain control characters \((U\+[0-9A-F]+) at index (\d+)\)$/.exec(problem);
  if (control !== null) return `contains a character that cannot be typed into it (${control[1]}, character ${Number(control[2]) + 1})`;
  const surrogate = /^must be well-formed Unicode \(a lone surrogate at index (\d+)\)$/.exec(problem);
  if (surrogate !== null) return `contains half of a character (character ${Number(surrogate[1]) + 1}): type that character again`;
  return problem;
}

/**
 * The server's refusal in a person's words: `invalid_arguments` names each field as the page labels it
 * ("The label is too long: at most 100 characters (it has 120)."), not as the API spells it.
 */
export function errorInWords(error: ApiError): string {
  // A URL the server cannot cite: its reason names the URL already ("the URL contains whitespace, …").
  if (error.code === "invalid_url" && typeof error.reason === "string") return `${error.reason.charAt(0).toUpperCase()}${error.reason.slice(1)}.`;
  // A cell's text too long: the server names it by its path and counts UTF-16 code units.
  const long = error.code === "limit_exceeded" ? /^(cells\S*|cells\[".*"\]) holds (\d+) UTF-16 code units \(at most (\d+)\)\.$/.exec(error.message) : null;
  const longCell = long === null ? null : cellName(long[1] ?? "");
  if (long !== null && longCell !== null) return `The cell “${longCell}” is too long: at most ${long[3]} characters (it has ${long[2]}).`;
  const issues = error.code === "invalid_arguments" && Array.isArray(error.issues) ? (error.issues as { path?: unknown; problem?: unknown }[]) : [];
  if (issues.length === 0) return error.message;
  return issues
    .map((issue) => {
      const path = String(issue.path ?? "");
      const problem = problemInWords(String(issue.problem ?? "is not accepted"));
      // One of a list ("columns[1]": the second name given) or one cell ("cells.Price"): named on its own.
      const item = /^(\w+)\[(\d+)\]/.exec(path);
      if (item !== null) return `${ITEM_NAMES[item[1] ?? ""] ?? "Item"} ${Number(item[2]) + 1}: ${problem}.`;
      const cell = cellName(path);
      if (cell !== null) return `The cell “${cell}” ${problem}.`;
      const field = FIELD_NAMES[path.split(/[.[]/)[0] ?? ""] ?? (path === "" || path.startsWith("(") ? "This" : `The field “${path}”`);
      return `${field} ${problem}.`;
    })
    .join(" ");
}

/** The column a path names, as the server spells it: `cells.Price`, or `cells["a,b"]` for any other name; else null. */
function cellName(path: string): string | null {
  const cell = /^cells(?:\.(\w+)|\[(".*")\])$/.exec(path);
  if (cell === null) return null;
  if (cell[1] !== undefined) return cell[1];
  try {
    const name: unknown = JSON.parse(cell[2] ?? "");
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}
