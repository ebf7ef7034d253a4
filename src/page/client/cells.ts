/**
 * @module
 * A Sheet's cells as the person types them on the page (no DOM here, so the
 * rule is tested on its own): a field is text, or a number when its "number"
 * box is ticked; the rule is written down in docs/api.md ("A Sheet on the
 * page").
 */

export type Cell = string | number;
export type Cells = Record<string, Cell>;

/** What a cell's field holds: its column, its text, and whether "number" is ticked. */
export interface CellInput {
  column: string;
  text: string;
  asNumber: boolean;
}

export type CellResult = { ok: true; cell: Cell | null } | { ok: false; problem: string };

/** A finite number written in decimal (12, -3.5, .5, 1e6; spaces around it dropped; no hex, no Infinity, no separators), or null. */
export function parseNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** The field's cell: null when empty (a "number" field of spaces only is empty too), a number when ticked, else the text exactly as typed. */
export function cellOf({ column, text, asNumber }: CellInput): CellResult {
  if (asNumber ? text.trim() === "" : text === "") return { ok: true, cell: null };
  if (!asNumber) return { ok: true, cell: text };
  const parsed = parseNumber(text);
  if (parsed === null) return { ok: false, problem: `“${column}” is not a number: “${text.trim()}”. Write it like 12, -3.5 or 1e6, or untick “number” to keep it as text.` };
  return { ok: true, cell: parsed };
}

/**
 * The cells of a row's form that differ from `base` (null empties one), or the first field's problem, by its
 * column. A text area gives line breaks as "\n": a cell that held "\r\n" and was not touched is no change.
 */
export function changedCells(inputs: Iterable<CellInput>, base: Readonly<Cells>): { ok: true; cells: Record<string, Cell | null> } | { ok: false; problem: string; column: string } {
  const cells: Record<string, Cell | null> = {};
  for (const input of inputs) {
    const result = cellOf(input);
    if (!result.ok) return { ok: false, problem: result.problem, column: input.column };
    const before = Object.hasOwn(base, input.column) ? (base[input.column] as Cell) : null;
    const same = result.cell === before || (typeof before === "string" && result.cell === before.replace(/\r\n?/g, "\n"));
    if (!same) cells[input.column] = result.cell;
  }
  return { ok: true, cells };
}

/** The names of an "Add columns" field: separated by commas, each trimmed. */
export function columnNames(text: string): string[] {
  return text.split(",").map((name) => name.trim());
}

/** Whether two rows' cells are the same, whatever their order. */
export function sameCells(a: Readonly<Cells> | undefined, b: Readonly<Cells>): boolean {
  if (a === undefined) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}
