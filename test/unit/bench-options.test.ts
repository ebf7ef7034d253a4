/** `npm run bench`'s arguments: --quick, --json, --help, and nothing else. */
import { describe, expect, it } from "vitest";
import { parseArgs, QUICK, USAGE } from "../../bench/options.js";

describe("npm run bench's arguments", () => {
  it("takes --quick, --json and --help in any order", () => {
    expect(parseArgs([])).toEqual({ quick: false, json: false, help: false });
    expect(parseArgs(["--json", "--quick"])).toEqual({ quick: true, json: true, help: false });
    expect(parseArgs(["-h"])).toEqual({ quick: false, json: false, help: true });
  });

  it("refuses what it does not know, naming it: there is one runtime", () => {
    expect(() => parseArgs(["--fast"])).toThrow("unknown argument --fast (try --help)");
    expect(() => parseArgs(["--runtime", "wrangler"])).toThrow("unknown argument --runtime wrangler");
  });

  it("says what --quick runs", () => {
    expect(USAGE).toContain(`${QUICK.durationSec} s per load, Notes of ${QUICK.sourceCounts.join(" / ")} sources`);
  });
});
