/**
 * `npm start`: the connector under `wrangler dev` on 127.0.0.1:${PORT:-8787},
 * with the local development sign-in of dev/local.env and a demo Note seeded
 * for alice, ready for `npm run demo`, `npm run token`, any MCP client, and
 * its page in the browser.
 * Ctrl-C stops it.
 */
import { DEMO_NOTE_ID, DEMO_USER, LocalServerStartError, seedDemoNote, startLocalServer, type LocalServer } from "./local-server.js";

const port = Number(process.env.PORT ?? "8787");
if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  console.error(`PORT must be a TCP port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(2);
}

let server: LocalServer | undefined;
let stopping: NodeJS.Signals | undefined;
const starting = new AbortController();

// Forward Ctrl-C and kill to wrangler (and what it started), then leave when it has.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    stopping = signal;
    if (server === undefined) starting.abort();
    else server.kill(signal);
  });
}

try {
  server = await startLocalServer({ port, inspectorPort: "wrangler", signal: starting.signal, onOutput: (line) => console.log(`[wrangler] ${line}`) });
} catch (error) {
  if (stopping !== undefined) process.exit(0);
  // wrangler's own output is above already; say why in one line.
  const reason = error instanceof LocalServerStartError ? error.reason : error instanceof Error ? error.message : String(error);
  console.error(`\nnpm start: the server did not start: ${reason}`);
  process.exit(1);
}

try {
  const seeded = await seedDemoNote(server.url);
  console.log(`[start] demo Note "${seeded.note_id}" ${seeded.created ? "created" : "already there"}, approved, version ${seeded.version}`);
} catch (error) {
  if (stopping !== undefined) {
    await server.exited; // stopped by Ctrl-C while seeding: not a failure
    process.exit(0);
  }
  console.error(`\nnpm start: seeding the demo Note failed.\n${error instanceof Error ? error.message : String(error)}`);
  await server.stop();
  process.exit(1);
}

console.log(
  [
    "",
    "  osFoundry Notes connector is running",
    `  MCP endpoint   ${server.mcpUrl}`,
    `  Note page      ${server.url}/notes/${DEMO_NOTE_ID}   (the demo Note in your browser; any Note: ${server.url}/notes/<note_id>)`,
    "  sign in        MCP clients open the consent page in your browser: local sign-in,",
    `                 user ${DEMO_USER} by default (type another name to be someone else)`,
    `  script token   TOKEN=$(npm run -s token${port === 8787 ? "" : ` -- --url ${server.url}`})   (Authorization: Bearer $TOKEN)`,
    `  demo note_id   ${DEMO_NOTE_ID}`,
    `  try it         npm run demo${port === 8787 ? "" : ` -- ${server.mcpUrl}`}   (in another terminal)`,
    "  stop           Ctrl-C",
    "",
  ].join("\n"),
);

const code = await server.exited;
await server.stop(); // anything wrangler left behind in its process group
process.exit(stopping !== undefined ? 0 : (code ?? 1));
