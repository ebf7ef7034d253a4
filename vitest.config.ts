import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

/** The development tokens of dev/local.env, the file `npm start` gives wrangler. */
function devTokens(): string {
  const match = /^DEV_TOKENS='(.*)'$/m.exec(readFileSync(new URL("./dev/local.env", import.meta.url), "utf8"));
  if (match?.[1] === undefined) throw new Error("dev/local.env has no DEV_TOKENS line");
  return match[1];
}

// Two projects: everything that can run inside workerd does (domain, object,
// HTTP, MCP); the end-to-end suite runs in Node, starts `wrangler dev` on a
// loopback port and talks to it with the official MCP client over real HTTP.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          cloudflareTest({
            main: "./src/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { DEV_TOKENS: devTokens() } },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/unit/**/*.test.ts", "test/workers/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
