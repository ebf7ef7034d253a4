/** A Sheet's cells as the person types them on the page (src/page/client/cells.ts; the rule in docs/api.md). */
import { describe, expect, it } from "vitest";
import { cellOf, changedCells, columnNames, parseNumber, sameCells } from "../../src/page/client/cells.js";

describe("a cell typed on the page", () => {
  it("is a number only when written in decimal and finite", () => {
    expect(["12", "-3.5", " .5 ", "+7", "1e6", "2.", "0"].map(parseNumber)).toEqual([12, -3.5, 0.5, 7, 1e6, 2, 0]);
    for (const text of ["", "abc", "0x10", "Infinity", "1e400", "1,000", "1 000", "NaN", "3.5.1", "--1"]) expect(parseNumber(text), text).toBeNull();
  });

  it("is text exactly as typed unless 'number' is ticked; empty is no cell; a bad number names its column", () => {
    expect(cellOf({ column: "Cost", text: " 2 ", asNumber: false })).toEqual({ ok: true, cell: " 2 " });
    expect(cellOf({ column: "Cost", text: " 2 ", asNumber: true })).toEqual({ ok: true, cell: 2 });
    expect(cellOf({ column: "Cost", text: "", asNumber: false })).toEqual({ ok: true, cell: null });
    expect(cellOf({ column: "Cost", text: "   ", asNumber: true })).toEqual({ ok: true, cell: null });
    expect(cellOf({ column: "Note", text: "   ", asNumber: false })).toEqual({ ok: true, cell: "   " });
    const bad = cellOf({ column: "Unit price", text: "a lot", asNumber: true });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problem).toMatch(/^“Unit price” is not a number: “a lot”/);
  });

  it("sends only the cells that changed: a type switched is a change, an emptied cell is null, an untouched CRLF cell is none", () => {
    const base = { Item: "Bread", Cost: "2", Note: "line 1\r\nline 2" };
    const inputs = [
      { column: "Item", text: "Bread", asNumber: false },
      { column: "Cost", text: "2", asNumber: true },
      { column: "Note", text: "line 1\nline 2", asNumber: false },
      { column: "Size", text: "", asNumber: false },
    ];
    expect(changedCells(inputs, base)).toEqual({ ok: true, cells: { Cost: 2 } });
    expect(changedCells([{ column: "Item", text: "", asNumber: false }], base)).toEqual({ ok: true, cells: { Item: null } });
    expect(changedCells([{ column: "Cost", text: "two", asNumber: true }], base)).toMatchObject({ ok: false, column: "Cost" });
  });

  it("reads column names separated by commas, trimmed; compares rows whatever their cells' order", () => {
    expect(columnNames(" Item ,Cost,  Due date ")).toEqual(["Item", "Cost", "Due date"]);
    expect(columnNames("Item,,Cost")).toEqual(["Item", "", "Cost"]);
    expect(sameCells({ a: 1, b: "x" }, { b: "x", a: 1 })).toBe(true);
    expect(sameCells({ a: 1 }, { a: "1" })).toBe(false);
    expect(sameCells({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameCells(undefined, {})).toBe(false);
  });
});
