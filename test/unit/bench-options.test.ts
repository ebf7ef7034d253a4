/** `npm run bench`'s arguments: Miniflare directly unless `--runtime wrangler` asks for wrangler dev. */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../bench/options.js";

describe("npm run bench's arguments", () => {
  it("runs on Miniflare directly by default", () => {
    expect(parseArgs(["--quick"])).toEqual({ runtime: "miniflare", quick: true, json: false, help: false });
  });

  it("takes --runtime wrangler anywhere among the others", () => {
    expect(parseArgs(["--runtime", "wrangler", "--json"])).toEqual({ runtime: "wrangler", quick: false, json: true, help: false });
    expect(parseArgs(["--quick", "--runtime", "miniflare"])).toEqual({ runtime: "miniflare", quick: true, json: false, help: false });
  });

  it("refuses a runtime it does not know, or none, naming the flag", () => {
    expect(() => parseArgs(["--runtime", "node"])).toThrow("--runtime: miniflare or wrangler, not node");
    expect(() => parseArgs(["--runtime"])).toThrow("--runtime: miniflare or wrangler, not nothing");
    expect(() => parseArgs(["--fast"])).toThrow("unknown argument --fast");
  });
});
