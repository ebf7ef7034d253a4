/**
 * The user ID of a person signed in through an OpenID Connect provider:
 * `{issuer tag}/{sub}`, stable for as long as the provider keeps the subject
 * (see docs/decisions.md, "Sign-in through OpenID Connect").
 *
 * - The issuer tag is the first 8 hex digits of the issuer's SHA-256: the
 *   same `sub` at another provider is another person.
 * - The `sub` is kept as it is when it is made of `A-Z a-z 0-9 . _ -`; every
 *   other byte of its UTF-8 is written `~XX` (upper-case hex), so
 *   `auth0|123` becomes `auth0~7C123`. The result is a Bearer token's
 *   characters (RFC 6750 §2.1) without ':', which the OAuth library's token
 *   format `{userId}:{grantId}:{secret}` reserves.
 * - When that is longer than LIMITS.userIdLength allows, the `sub` is
 *   replaced by `+` and its SHA-256 in base64url.
 *
 * A local user name ([a-z0-9._-]) has no '/', so the two never meet.
 *
 * @example
 * await oidcUserId("https://accounts.example.com", "248289761001") // "3c1bfa27/248289761001" (tag illustrative)
 */
import { LIMITS } from "../note/index.js";
import { base64url, sha256 } from "./base64url.js";

export async function oidcUserId(issuer: string, sub: string): Promise<string> {
  const tag = hex(await sha256(issuer)).slice(0, TAG_LENGTH);
  const escaped = escapeSub(sub);
  if (tag.length + 1 + escaped.length <= LIMITS.userIdLength) return `${tag}/${escaped}`;
  return `${tag}/+${base64url(await sha256(sub))}`;
}

const TAG_LENGTH = 8;

function escapeSub(sub: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(sub)) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9._-]/.test(char) ? char : `~${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
