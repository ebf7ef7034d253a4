/**
 * `npm run sim` as people run it: the launcher (scripts/sim.mjs) bundles the
 * simulations into one script and runs it with a V8 code cache. Its JSON is
 * the in-process result of the same experiments, with the cache written
 * (first run after a build) and with it read (the next run).
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { runExperiments, toJson, type ExperimentNumber } from "../../sim/experiments.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OUT = fileURLToPath(new URL("../../dist/sim/", import.meta.url));
const ARGS = ["scripts/sim.mjs", "--only", "3,5", "--trials", "200", "--json"];

async function sim(): Promise<unknown> {
  const { stdout } = await promisify(execFile)("node", ARGS, { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(stdout);
}

it("prints the in-process results, building the bundle, then running it from its code cache", async () => {
  const only = new Set<ExperimentNumber>([3, 5]);
  const expected = JSON.parse(JSON.stringify(toJson(runExperiments({ trials: 200 }, only), only)));

  rmSync(OUT, { recursive: true, force: true });
  expect(await sim()).toEqual(expected);
  expect(existsSync(`${OUT}main.cjs.v8-cache`)).toBe(true);
  expect(await sim()).toEqual(expected);
}, 60_000);
