/**
 * The real connector under `wrangler dev` for an end-to-end test file: the
 * project's shared one (test/support/e2e-global.ts), or one of the file's own
 * on a free loopback port with a throwaway storage directory, started before
 * the file's tests and stopped (and its directory removed) after them.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer, type SeededNote } from "../../scripts/local-server.js";

/** Starts the server for this file (with `vars` over dev/local.env's); `setUp` runs once it answers. Returns the running server's getter. */
export function useLocalServer(
  setUp: (server: LocalServer) => Promise<void> = async () => {},
  timeoutMs?: number,
  vars?: Record<string, string>,
): () => LocalServer {
  let server: LocalServer | undefined;
  let persistDir: string | undefined;
  beforeAll(async () => {
    persistDir = await tempPersistDir();
    server = await startLocalServer({ port: await freePort(), persistTo: persistDir, vars });
    await setUp(server);
  }, timeoutMs);
  afterAll(async () => {
    await server?.stop();
    if (persistDir !== undefined) await removeDir(persistDir);
  });
  return () => {
    if (server === undefined) throw new Error("the server did not start");
    return server;
  };
}

/** The shared server's origin and MCP endpoint. */
export interface SharedServer {
  url: string;
  mcpUrl: string;
}

/**
 * The project's one `wrangler dev`, shared by the files that need no vars of
 * their own and no restart: the demo Note is on it, seeded once (`seeded`),
 * and other files' writes may be there too. `setUp` runs before the file's tests.
 */
export function useSharedServer(setUp: (server: SharedServer) => Promise<void> = async () => {}): { running: () => SharedServer; seeded: () => SeededNote } {
  const url = inject("e2eOrigin");
  const server = { url, mcpUrl: `${url}/mcp` };
  beforeAll(() => setUp(server));
  return { running: () => server, seeded: () => inject("e2eSeeded") };
}
