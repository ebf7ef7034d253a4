import { defineConfig } from "vitest/config";

/**
 * `npm run test:browser`: the person's page in headless Chromium against
 * `wrangler dev` (test/browser). Apart from `npm test`: it needs Debian's
 * chromium package (or CHROMIUM_PATH), and it restarts its own server.
 */
export default defineConfig({
  test: {
    name: "browser",
    environment: "node",
    include: ["test/browser/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 180_000,
  },
});
