/**
 * `npm run sim` as people run it: the launcher (scripts/sim.mjs) bundles the
 * simulations with esbuild when a source of the bundle changed, then runs
 * the bundle. Its JSON is the in-process result of the same experiments,
 * whether the run built the bundle or found it fresh.
 */
import { execFile } from "node:child_process";
import { rmSync, statSync, utimesSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { runExperiments, toJson, type ExperimentNumber } from "../../sim/experiments.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OUT = fileURLToPath(new URL("../../dist/sim/", import.meta.url));
const BUNDLE = `${OUT}main.cjs`;
/** A source every bundle reads. */
const SOURCE = fileURLToPath(new URL("../../sim/settings.ts", import.meta.url));

const run = promisify(execFile);

async function sim(args: string[]): Promise<unknown> {
  const { stdout } = await run("node", ["scripts/sim.mjs", ...args], { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(stdout);
}

it("prints the in-process results, building the bundle only when one of its sources changed", async () => {
  const args = ["--only", "3,5", "--trials", "200", "--json"];
  const only = new Set<ExperimentNumber>([3, 5]);
  const expected = JSON.parse(JSON.stringify(toJson(runExperiments({ trials: 200 }, only), only)));

  rmSync(OUT, { recursive: true, force: true });
  expect(await sim(args)).toEqual(expected);
  const built = statSync(BUNDLE).mtimeMs;

  expect(await sim(args)).toEqual(expected);
  expect(statSync(BUNDLE).mtimeMs, "a fresh bundle is run as it is").toBe(built);

  const now = new Date();
  utimesSync(SOURCE, now, now);
  expect(await sim(args)).toEqual(expected);
  expect(statSync(BUNDLE).mtimeMs, "a changed source rebuilds the bundle").toBeGreaterThan(built);
}, 60_000);

it("answers a --live run with no connector behind the URL with one sentence and exit code 1", async () => {
  // Port 9 is one fetch refuses at once.
  const failed = await run("npm", ["run", "--silent", "sim", "--", "--live", "http://127.0.0.1:9", "--only", "3"], { cwd: ROOT }).then(
    () => undefined,
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  expect(failed?.code).toBe(1);
  const lines = failed?.stderr.trimEnd().split("\n") ?? [];
  expect(lines.at(-1)).toMatch(/^npm run sim: could not sign in at http:\/\/127\.0\.0\.1:9: .*\. Is the connector running there \(npm start\)\?$/);
}, 60_000);
