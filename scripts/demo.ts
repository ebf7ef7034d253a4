/**
 * `npm run demo [url]`: runs the demo agent session (scripts/demo-session.ts)
 * against a running connector and prints each call and answer. Start the
 * server first with `npm start`.
 */
import { DEV_TOKENS } from "./local-server.js";
import { runDemoSession, ToolCallError } from "./demo-session.js";

const DEFAULT_URL = "http://127.0.0.1:8787/mcp";

async function main(): Promise<number> {
  const mcpUrl = process.argv[2] ?? DEFAULT_URL;
  const token = process.env.NOTES_TOKEN ?? DEV_TOKENS.agent;

  let origin: string;
  try {
    origin = new URL(mcpUrl).origin;
  } catch {
    console.error(`Not a URL: ${mcpUrl}\nUsage: npm run demo [-- http://127.0.0.1:8787/mcp]`);
    return 2;
  }
  // A clear message for the common case: no server listening.
  try {
    const response = await fetch(`${origin}/`, { signal: AbortSignal.timeout(5_000) });
    await response.body?.cancel();
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    console.error(`No connector answers at ${origin} (${reason}).\nStart it with \`npm start\` in another terminal, then run \`npm run demo\` again.`);
    return 1;
  }

  try {
    const transcript = await runDemoSession(mcpUrl, token, (line) => console.log(line));
    const failed = transcript.checks.filter((c) => !c.ok);
    console.log("");
    if (failed.length > 0) {
      console.error(`${failed.length} of ${transcript.checks.length} checks failed: ${failed.map((c) => c.name).join("; ")}`);
      return 1;
    }
    console.log(`All ${transcript.checks.length} checks held. Deck ${transcript.deck.tab_id} in Note "${transcript.noteId}", now at version ${transcript.tabsAfter.version}.`);
    return 0;
  } catch (error) {
    if (error instanceof ToolCallError) console.error(`\nThe demo stopped: ${error.message}\n${JSON.stringify(error.error, null, 2)}`);
    else console.error(`\nThe demo stopped: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof Error && /401|Unauthorized|invalid_token/i.test(error.message)) {
      console.error("The token was refused: set NOTES_TOKEN to a token from dev/local.env (default dev-alice-agent).");
    }
    return 1;
  }
}

process.exitCode = await main();
