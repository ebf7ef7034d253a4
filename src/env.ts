/** The Worker's bindings and variables (wrangler.toml); the variables are read only through `settingsOf` (src/settings.ts). */
import type { DirectoryObject } from "./storage/directory-object.js";
import type { NoteObject } from "./storage/note-object.js";

export interface Env extends ConnectorEnv {}

interface ConnectorEnv {
  NOTES: DurableObjectNamespace<NoteObject>;
  DIRECTORY: DurableObjectNamespace<DirectoryObject>;
  /** Seconds an idempotency key is honoured; default 7 days. */
  IDEMPOTENCY_RETENTION_SECONDS?: string;
  /** KV namespace of the OAuth provider: clients, grants, tokens (hashed). */
  OAUTH_KV: KVNamespace;
  /** This deployment's public origin, e.g. https://notes-connector.example.com; unset: loopback origins only (local development). */
  PUBLIC_URL?: string;
  /** Access-token lifetime in seconds (default 3600). */
  ACCESS_TOKEN_TTL_SECONDS?: string;
  /** "true" enables the local development sign-in (a typed user name). Never in production. */
  LOCAL_SIGN_IN?: string;
  /** The user name the local sign-in page suggests. */
  LOCAL_USER?: string;
  /** The OpenID Connect provider people sign in through, e.g. https://accounts.example.com; unset: no upstream sign-in. */
  OIDC_ISSUER?: string;
  /** The client ID the provider registered for this connector. */
  OIDC_CLIENT_ID?: string;
  /** Secret (`wrangler secret put OIDC_CLIENT_SECRET`): the client secret the provider gave this connector. */
  OIDC_CLIENT_SECRET?: string;
  /** Comma-separated email domains; when set, only accounts with a verified email in one of them may sign in. */
  OIDC_ALLOWED_EMAIL_DOMAINS?: string;
  /** Comma-separated origins allowed to call /mcp from a browser. */
  ALLOWED_ORIGINS?: string;
  /** "off" turns the abuse limits off; refused with a public PUBLIC_URL (local runs only). Default "on". */
  RATE_LIMITS?: string;
  /** Abuse limits (wrangler.toml `[[ratelimits]]`, per minute): registrations per client address. */
  REGISTER_LIMIT?: RateLimit;
  /** Requests to /authorize per client address. */
  AUTHORIZE_LIMIT?: RateLimit;
  /** Calls of write tools per user and OAuth client. */
  TOOL_WRITE_LIMIT?: RateLimit;
  /** Calls of read-only tools per user and OAuth client. */
  TOOL_READ_LIMIT?: RateLimit;
  /** Requests to /mcp without a token (discovery: initialize, tools/list, …) per client address. */
  PUBLIC_MCP_LIMIT?: RateLimit;
}

declare global {
  // Lets `env` from "cloudflare:workers" and "cloudflare:test" carry these bindings.
  namespace Cloudflare {
    interface Env extends ConnectorEnv {}
    interface GlobalProps {
      mainModule: typeof import("./index.js");
      durableNamespaces: "NoteObject" | "DirectoryObject";
    }
  }
}
