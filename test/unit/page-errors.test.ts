/** A refusal in the page's words (src/page/client/refusal.ts, `errorInWords`): each field named as the page labels it, no API terms. */
import { describe, expect, it } from "vitest";
import { errorInWords } from "../../src/page/client/refusal.js";

const invalid = (path: string, problem: string) => ({ code: "invalid_arguments", message: `${path}: ${problem}`, issues: [{ path, problem }] });

describe("errorInWords", () => {
  it("names the file form's fields as the form labels them", () => {
    expect(errorInWords(invalid("media_type", 'must look like "type/subtype"'))).toBe('The media type must look like "type/subtype".');
    expect(errorInWords(invalid("size_bytes", "must not be negative"))).toBe("The size must not be negative.");
  });

  it("tells a lone surrogate as half of a character, counted from 1", () => {
    expect(errorInWords(invalid("title", "must be well-formed Unicode (a lone surrogate at index 5)"))).toBe("The title contains half of a character (character 6): type that character again.");
  });

  it("tells a URL the server cannot cite by its reason, without the API's field name", () => {
    const reason = "the URL contains whitespace, control or invisible characters; percent-encode them";
    expect(errorInWords({ code: "invalid_url", message: `url: ${reason}.`, reason })).toBe("The URL contains whitespace, control or invisible characters; percent-encode them.");
  });
});

describe("errorInWords on a Sheet's cells", () => {
  it("names a cell of any column, a comma or quotes in its name, and a cell too long in characters", () => {
    expect(errorInWords(invalid('cells["a,b"]', "must be text or a number"))).toBe("The cell “a,b” must be text or a number.");
    expect(errorInWords(invalid('cells["say \\"hi\\""]', "must be text or a number"))).toBe("The cell “say \"hi\"” must be text or a number.");
    expect(errorInWords({ code: "limit_exceeded", message: 'cells["a,b"] holds 2001 UTF-16 code units (at most 2000).', limit: "cell_length", max: 2000 })).toBe(
      "The cell “a,b” is too long: at most 2000 characters (it has 2001).",
    );
    expect(errorInWords({ code: "limit_exceeded", message: "cells.Price holds 2001 UTF-16 code units (at most 2000).", limit: "cell_length", max: 2000 })).toBe(
      "The cell “Price” is too long: at most 2000 characters (it has 2001).",
    );
  });
});
