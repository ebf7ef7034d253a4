/**
 * `npm run demo [url]`: runs the demo agent session (scripts/demo-session.ts)
 * against a running connector and prints each call and answer. Start the
 * server first with `npm start`. The agent's token is NOTES_TOKEN when set;
 * otherwise the demo signs in as alice through the local consent page, as an
 * MCP client would, for osfoundry:read and osfoundry:write on the MCP endpoint.
 */
import { signIn } from "./lib/sign-in.js";
import { DEMO_USER } from "./local-server.js";
import { runDemoSession, ToolCallError } from "./demo-session.js";

const DEFAULT_URL = "http://127.0.0.1:8787/mcp";

async function main(): Promise<number> {
  const mcpUrl = process.argv[2] ?? DEFAULT_URL;

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

  let token = process.env.NOTES_TOKEN;
  if (token === undefined || token === "") {
    try {
      token = (await signIn({ origin, user: DEMO_USER, scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp" })).access_token;
      console.log(`signed in as ${DEMO_USER} through ${origin}/authorize (osfoundry:read osfoundry:write)`);
    } catch (error) {
      console.error(`Signing in as ${DEMO_USER} failed: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
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
    // The SDK's StreamableHTTPError carries the HTTP status as `code`; its message may not name it.
    const status = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
    if (error instanceof ToolCallError) console.error(`\nThe demo stopped: ${error.message}\n${JSON.stringify(error.error, null, 2)}`);
    else console.error(`\nThe demo stopped: ${typeof status === "number" ? `HTTP ${status}: ` : ""}${error instanceof Error ? error.message : String(error)}`);
    if (status === 401 || (error instanceof Error && /401|Unauthorized|invalid_token/i.test(error.message))) {
      console.error(
        "The token was refused. NOTES_TOKEN must be an access token for this server's /mcp (`npm run -s token`); unset it to sign in as alice.",
      );
    }
    return 1;
  }
}

process.exitCode = await main();
