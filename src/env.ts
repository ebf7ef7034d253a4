/** The Worker's bindings and settings (wrangler.toml). */
import type { DirectoryObject } from "./storage/directory-object.js";
import type { NoteObject } from "./storage/note-object.js";

export interface Env extends ConnectorEnv {}

interface ConnectorEnv {
  NOTES: DurableObjectNamespace<NoteObject>;
  DIRECTORY: DurableObjectNamespace<DirectoryObject>;
  /** Seconds an idempotency key is honoured; default 7 days. */
  IDEMPOTENCY_RETENTION_SECONDS?: string;
  /** JSON map of development bearer tokens to `{user, scopes}`. */
  DEV_TOKENS?: string;
  /** Comma-separated origins allowed to call /mcp from a browser. */
  ALLOWED_ORIGINS?: string;
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
