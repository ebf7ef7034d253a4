/**
 * Markdown tables for the simulations' output: padded so they read as a
 * table in a terminal too, numbers right-aligned.
 */

export type Align = "left" | "right";

export interface Table {
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /** One per column; text columns left, figures right by default (the first column left, the rest right). */
  align?: readonly Align[];
}

/**
 * @example
 * markdownTable({ head: ["handle", "correct"], rows: [["ID", "10,000"]] });
 * // | handle | correct |
 * // |:-------|--------:|
 * // | ID     |  10,000 |
 */
export function markdownTable(table: Table): string {
  const { head, rows } = table;
  const align = head.map((_, i) => table.align?.[i] ?? (i === 0 ? "left" : "right"));
  const widths = head.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const cell = (text: string, i: number): string => {
    const width = widths[i] ?? 3;
    return align[i] === "right" ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: readonly string[]): string => `| ${head.map((_, i) => cell(cells[i] ?? "", i)).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (align[i] === "right" ? `${"-".repeat(w + 1)}:` : `:${"-".repeat(w + 1)}`)).join("|")}|`;
  return [line(head), rule, ...rows.map(line)].join("\n");
}

/** An integer with thousands separators: 10000 → "10,000". */
export function count(n: number): string {
  const sign = n < 0 ? "-" : "";
  const digits = String(Math.abs(Math.round(n)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `part` of `whole` as a percentage with one decimal: "49.8%". */
export function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
}

/** A count and its share: "4,980 (49.8%)". */
export function share(part: number, whole: number): string {
  return `${count(part)} (${percent(part, whole)})`;
}

/** A mean with a fixed number of decimals. */
export function decimal(value: number, digits: number): string {
  return value.toFixed(digits);
}
