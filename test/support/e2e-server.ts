/**
 * One real connector per end-to-end test file: `wrangler dev` on a free
 * loopback port with a throwaway storage directory, started before the
 * file's tests and stopped (and its directory removed) after them.
 */
import { afterAll, beforeAll } from "vitest";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer } from "../../scripts/local-server.js";

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
