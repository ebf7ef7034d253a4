/**
 * `npm run sim` as people run it: the launcher (scripts/sim.mjs) bundles the
 * simulations into one script and runs it with a V8 code cache. Its JSON is
 * the in-process result of the same experiments, with the cache written
 * (first run after a build) and with it read (the next run). Node starts
 * without NODE_EXTRA_CA_CERTS unless the run goes `--live`.
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
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

describe("NODE_EXTRA_CA_CERTS", () => {
  // Every Node process started with an unreadable file warns once at start-up, npm's own included.
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: join(tmpdir(), "notes-connector-no-such-certs.pem") };
  const warnings = (stderr: string) => stderr.split(`Ignoring extra certs from \`${env.NODE_EXTRA_CA_CERTS}\``).length - 1;
  const npmSim = (args: string[]) => promisify(execFile)("npm", ["run", "--silent", "sim", "--", ...args], { cwd: ROOT, env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

  it("is not read by a run in process, which opens no connection", async () => {
    const run = await npmSim(["--only", "3", "--trials", "10"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("### 3. Idempotency order");
    expect(warnings(run.stderr)).toBe(1);
  }, 60_000);

  it("is given back to a --live run, which may reach an https connector", async () => {
    // Port 9 is one fetch refuses at once: the run fails before any connection, after Node started.
    const run = await npmSim(["--live", "http://127.0.0.1:9", "--only", "3"]);
    expect(run.code).toBe(1);
    expect(warnings(run.stderr)).toBe(2);
    expect(run.stderr).toContain("could not sign in at http://127.0.0.1:9");
  }, 60_000);
});
