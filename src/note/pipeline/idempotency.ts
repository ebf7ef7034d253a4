/**
 * Idempotency keys (docs/spec.md §1, promise 2): a key names one intent in one Note.
 * The first committed result is recorded under it, with a fingerprint of the
 * arguments that produced it; a resend gets that result back, marked
 * `replayed`, and told whether its arguments differed from the first call's.
 */
import type { KeyedCommand } from "../commands.js";
import { fail, ok, type Result } from "../result.js";
import { byCodePoint } from "../unicode.js";
import { SLIDE_FIELDS } from "../validate.js";
import type { NoteStore } from "../store.js";

/** What every keyed write's result adds to its change. */
interface WriteOutcome {
  /** The version the first call committed as (or found, when it changed nothing). */
  version: number;
  replayed: boolean;
  /** On a replay: the resend's arguments were not the first call's (the first result still stands). */
  arguments_differ: boolean;
  /**
   * On a replay only: the Note's version now, which the next write carries as
   * expected_version (`version` is the first call's, and the Note may have moved on since).
   */
  current_version?: number;
}

/**
 * The recorded first result under this key, marked replayed and with the
 * Note's `currentVersion`; an error for a key first used by another tool;
 * null for a key not seen in this Note.
 */
export function replay(store: NoteStore, tool: KeyedCommand, key: string, fingerprint: string, currentVersion: number): Result<WriteOutcome> | null {
  const seen = store.idempotency(key);
  if (seen === null) return null;
  if (seen.tool !== tool) {
    return fail({
      code: "idempotency_key_reused",
      message: "The idempotency key was first used by another operation in this Note (first_used_by); use a new key for a new intent.",
      idempotency_key: key,
      first_used_by: seen.tool,
    });
  }
  const first = seen.result as WriteOutcome;
  // A record from before fingerprints cannot tell; it says the arguments matched, as it always did.
  const differ = seen.fingerprint !== null && seen.fingerprint !== fingerprint;
  return ok({ ...first, replayed: true, arguments_differ: differ, current_version: currentVersion });
}

/**
 * A fingerprint of a write's validated arguments, what the key's intent is
 * about: the write's own fields in their fixed order (and a slide's), not the
 * version (a resend after a re-read carries a newer one) nor the key itself,
 * so the caller's order of fields never matters. 64 bits of two hash lanes,
 * fed each value with a tag and its length, so that no two different
 * arguments feed the same units. It tells a resend that changed something
 * from one that did not; it is no security boundary (a caller can only
 * confuse itself).
 */
export function fingerprint(args: Readonly<Record<string, unknown>>, fields: readonly string[], laterFields: readonly string[] = []): string {
  const hash = new Hash64();
  for (const name of fields) hash.value(args[name]);
  // A later field only when given, named: absent, it leaves the fingerprint its first release computed.
  for (const name of laterFields) {
    if (args[name] === undefined) continue;
    hash.value(name);
    hash.value(args[name]);
  }
  return hash.hex();
}

/** Two 32-bit lanes over 16-bit units: FNV-1a, and a multiply-xorshift with another prime. */
class Hash64 {
  #a = 0x811c9dc5;
  #b = 0x9e3779b9;

  /** The values validated arguments hold: absent, null, text, numbers, booleans, lists, slides and other objects. */
  value(value: unknown): void {
    if (value === undefined) return this.#unit(0);
    if (value === null) return this.#unit(5);
    if (typeof value === "string") return this.#text(1, value);
    if (typeof value === "number" || typeof value === "boolean") return this.#text(2, String(value));
    if (Array.isArray(value)) {
      this.#unit(3);
      this.#unit(value.length);
      for (const item of value) this.value(item);
      return;
    }
    const object = value as Readonly<Record<string, unknown>>;
    const names = Object.keys(object);
    if (names.every((name) => (SLIDE_FIELDS as readonly string[]).includes(name))) {
      // A slide, as the first release hashed it: kept so that records of that release still match. A row whose
      // columns are only such names hashes this way too, the same way every time, so it stays one fingerprint.
      this.#unit(4);
      for (const name of SLIDE_FIELDS) this.value(object[name]);
      return;
    }
    // Any other object (a row's cells): its fields by name, in code point order, so the caller's order never matters.
    this.#unit(6);
    this.#unit(names.length);
    for (const name of names.sort(byCodePoint)) {
      this.#text(1, name);
      this.value(object[name]);
    }
  }

  hex(): string {
    return hex32(this.#a) + hex32(this.#b);
  }

  #text(tag: number, text: string): void {
    this.#unit(tag);
    this.#unit(text.length >>> 16);
    this.#unit(text.length & 0xffff);
    for (let i = 0; i < text.length; i++) this.#unit(text.charCodeAt(i));
  }

  #unit(unit: number): void {
    this.#a = Math.imul(this.#a ^ unit, 0x01000193);
    this.#b = Math.imul(this.#b ^ unit, 0x5bd1e995);
    this.#b ^= this.#b >>> 15;
  }
}

function hex32(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}
