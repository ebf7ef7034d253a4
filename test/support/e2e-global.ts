/**
 * The end-to-end project's global setup: one `wrangler dev` for every file that
 * can share it (test/support/e2e-server.ts, `useSharedServer`), on a free
 * loopback port with a throwaway storage directory, the demo Note seeded on it.
 * Its origin and the seeding's answer reach the files by `inject`; files that
 * need vars of their own or restart their server start their own.
 */
import type { TestProject } from "vitest/node";
import { freePort, removeDir, seedDemoNote, startLocalServer, tempPersistDir, type SeededNote } from "../../scripts/local-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared server's origin, e.g. `http://127.0.0.1:40123`. */
    e2eOrigin: string;
    /** What seeding the demo Note answered on the fresh shared server. */
    e2eSeeded: SeededNote;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const persistDir = await tempPersistDir();
  const server = await startLocalServer({ port: await freePort(), persistTo: persistDir });
  try {
    project.provide("e2eSeeded", await seedDemoNote(server.url));
  } catch (error) {
    await server.stop();
    await removeDir(persistDir);
    throw error;
  }
  project.provide("e2eOrigin", server.url);
  return async () => {
    await server.stop();
    await removeDir(persistDir);
  };
}
