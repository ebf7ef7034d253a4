/**
 * `npm run -s token -- [--user alice] [--scope "osfoundry:read osfoundry:write"]
 * [--resource mcp|api] [--url http://127.0.0.1:8787]`: an access token from a
 * running local connector, printed alone on stdout so that
 * `TOKEN=$(npm run -s token)` works. It runs the flow an MCP client runs
 * (dynamic registration, PKCE S256, the consent page answered as the local
 * user, the token endpoint; scripts/lib/sign-in.ts). Errors go to stderr with
 * a non-zero exit: 2 for a bad command line, 1 when signing in failed.
 *
 * Defaults: user alice; resource mcp; scope "osfoundry:read osfoundry:write"
 * for mcp and "osfoundry:app" for api.
 */
import { parseArgs } from "node:util";
import { signIn } from "./lib/sign-in.js";
import { DEMO_USER } from "./local-server.js";

const USAGE = `Usage: npm run -s token -- [--user alice] [--scope "osfoundry:read osfoundry:write"] [--resource mcp|api] [--url http://127.0.0.1:8787]
Prints an access token for the local connector (start it with \`npm start\`).
  --user      the local user to sign in as (default ${DEMO_USER})
  --scope     scopes, separated by spaces or commas (default: osfoundry:read osfoundry:write for mcp, osfoundry:app for api)
  --resource  mcp: the MCP endpoint /mcp (default); api: the person's API /api/v1
  --url       the connector's origin (default http://127.0.0.1:8787)`;

const DEFAULT_SCOPES = { mcp: ["osfoundry:read", "osfoundry:write"], api: ["osfoundry:app"] } as const;

class UsageError extends Error {}

interface TokenRequest {
  origin: string;
  user: string;
  scopes: string[];
  resource: "mcp" | "api";
}

function parseCommandLine(argv: string[]): TokenRequest | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        user: { type: "string" },
        scope: { type: "string" },
        resource: { type: "string" },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help === true) return "help";

  const resource = values.resource ?? "mcp";
  if (resource !== "mcp" && resource !== "api") throw new UsageError(`--resource must be mcp or api, got ${JSON.stringify(resource)}`);

  const scopes = values.scope === undefined ? [...DEFAULT_SCOPES[resource]] : values.scope.split(/[\s,]+/).filter((s) => s !== "");
  if (scopes.length === 0) throw new UsageError("--scope names no scope");

  const user = values.user ?? DEMO_USER;
  if (user.trim() === "") throw new UsageError("--user is empty");

  let origin: string;
  try {
    const url = new URL(values.url ?? "http://127.0.0.1:8787");
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
    origin = url.origin;
  } catch {
    throw new UsageError(`--url must be the connector's http(s) URL, got ${JSON.stringify(values.url)}`);
  }
  return { origin, user, scopes, resource };
}

async function main(argv: string[]): Promise<number> {
  let request: TokenRequest | "help";
  try {
    request = parseCommandLine(argv);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (request === "help") {
    console.error(USAGE);
    return 0;
  }

  try {
    const tokens = await signIn(request);
    // The consent page grants only what the resource carries: say so rather than print a token that will be refused.
    const granted = new Set(tokens.scope.split(" ").filter((s) => s !== ""));
    const missing = request.scopes.filter((s) => !granted.has(s));
    if (missing.length > 0) {
      console.error(
        `The server did not grant ${missing.join(" ")} for the ${request.resource} resource (granted: ${tokens.scope || "nothing"}).\n` +
          `The MCP resource carries osfoundry:read and osfoundry:write; the api resource carries osfoundry:app.`,
      );
      return 1;
    }
    process.stdout.write(`${tokens.access_token}\n`);
    return 0;
  } catch (error) {
    const reason = describe(error);
    if (/ECONNREFUSED|fetch failed|ENOTFOUND|EHOSTUNREACH/.test(reason)) {
      console.error(`No connector answers at ${request.origin} (${reason}).\nStart it with \`npm start\` in another terminal, or pass --url.`);
    } else {
      console.error(`Could not get a token from ${request.origin}: ${reason}`);
    }
    return 1;
  }
}

/** An error's message, with its cause (Node's fetch puts the network error there). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${(error.cause as NodeJS.ErrnoException).code ?? error.cause.message}` : "";
  return `${error.message}${cause}`;
}

process.exitCode = await main(process.argv.slice(2));
