/**
 * One line at the end of a run: where the time went, the slowest test files
 * first (their tests and hooks, as vitest counts them). `npm test` has a
 * budget of three minutes on a 2-core machine; this line shows what spends it.
 */
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const SHOWN = 6;

export default class SlowestReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (testModules.length < 2) return;
    const timed = testModules.map((m) => ({ name: relative(m.project.config.root, m.moduleId), seconds: m.diagnostic().duration / 1000 }));
    const total = timed.reduce((sum, m) => sum + m.seconds, 0);
    const slowest = timed
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SHOWN)
      .map((m) => `${m.name} ${m.seconds.toFixed(1)} s`);
    process.stdout.write(`\n Slowest files: ${slowest.join(", ")} (all ${testModules.length} files: ${total.toFixed(0)} s of tests and hooks)\n`);
  }
}
