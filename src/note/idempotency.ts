/**
 * Idempotency keys (SPEC §1, promise 2): a key names one intent in one Note.
 * The first committed result is recorded under it, with a fingerprint of the
 * arguments that produced it; a resend gets that result back, marked
 * `replayed`, and told whether its arguments differed from the first call's.
 */
import type { KeyedCommand } from "./commands.js";
import { fail, ok, type Result } from "./result.js";
import type { NoteStore } from "./store.js";

/** What every keyed write's result adds to its change. */
export interface WriteOutcome {
  version: number;
  replayed: boolean;
  /** On a replay: the resend's arguments were not the first call's (the first result still stands). */
  arguments_differ: boolean;
}

/**
 * The recorded first result under this key, marked replayed; an error for a
 * key first used by another tool; null for a key not seen in this Note.
 */
export function replay(store: NoteStore, tool: KeyedCommand, key: string, fingerprint: string): Result<WriteOutcome> | null {
  const seen = store.idempotency(key);
  if (seen === null) return null;
  if (seen.tool !== tool) {
    return fail({
      code: "idempotency_key_reused",
      message: `The idempotency key was first used for ${seen.tool} in this Note; use a new key for a new intent.`,
      idempotency_key: key,
      first_used_by: seen.tool,
    });
  }
  const first = seen.result as WriteOutcome;
  // A record from before fingerprints cannot tell; it says the arguments matched, as it always did.
  const differ = seen.fingerprint !== null && seen.fingerprint !== fingerprint;
  return ok({ ...first, replayed: true, arguments_differ: differ });
}

/**
 * A fingerprint of a write's arguments, what the key's intent is about: every
 * field but the version (a resend after a re-read carries a newer one) and
 * the key itself. 64 bits of two hash lanes over canonical JSON: it tells a
 * resend that changed something from one that did not; it is no security
 * boundary (a caller can only confuse itself).
 */
export function fingerprint(args: Readonly<Record<string, unknown>>): string {
  const { expected_version: _version, idempotency_key: _key, ...intent } = args;
  return hash64(canonicalJson(intent));
}

/** JSON with every object's keys in sorted order, so field order never matters. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Two 32-bit lanes over the UTF-16 code units: FNV-1a, and a multiply-xorshift with another prime. */
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return hex32(a) + hex32(b);
}

function hex32(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}
