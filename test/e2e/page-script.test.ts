/** The page's script is committed as a generated module (npm run build:page): it must be what its sources build now. */
import { readFile } from "node:fs/promises";
import { expect, it } from "vitest";
import { GENERATED, pageModule } from "../../scripts/build-page.js";

it("src/page/generated/app-js.ts is built from src/page/client as it is (run npm run build:page after editing it)", async () => {
  const same = (await readFile(GENERATED, "utf8")) === (await pageModule());
  expect(same, "src/page/generated/app-js.ts is out of date: run npm run build:page").toBe(true);
});
