/** Who an OpenID sign-in is: the user ID from issuer and `sub`, and the email-domain rule. */
import { describe, expect, it } from "vitest";
import { checkEmailDomain } from "../../src/auth/id-token.js";
import { SignInFailure } from "../../src/auth/sign-in-failure.js";
import { oidcUserId } from "../../src/auth/user-id.js";
import { LIMITS } from "../../src/note/limits.js";

const ISSUER = "https://accounts.example.com";

async function tag(issuer: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(issuer)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 8);
}

describe("the user ID of an OpenID sign-in", () => {
  it("is the issuer's tag and the sub, kept as it is when it is plain", async () => {
    expect(await oidcUserId(ISSUER, "248289761001")).toBe(`${await tag(ISSUER)}/248289761001`);
    expect(await oidcUserId(ISSUER, "a.b_c-D")).toBe(`${await tag(ISSUER)}/a.b_c-D`);
  });

  it("the same sub at another issuer (or the same one with a trailing slash) is another user", async () => {
    const ids = new Set([await oidcUserId(ISSUER, "42"), await oidcUserId(`${ISSUER}/`, "42"), await oidcUserId("https://other.example.com", "42")]);
    expect(ids.size).toBe(3);
  });

  it("escapes every other byte as ~XX: no ':' (the token format's separator), only a Bearer token's characters", async () => {
    const t = await tag(ISSUER);
    expect(await oidcUserId(ISSUER, "auth0|5f7c")).toBe(`${t}/auth0~7C5f7c`);
    expect(await oidcUserId(ISSUER, "a:b c~é")).toBe(`${t}/a~3Ab~20c~7E~C3~A9`);
    expect(await oidcUserId(ISSUER, "~7C")).not.toBe(await oidcUserId(ISSUER, "|"));
    for (const sub of ["a:b", "x y", "ü/ß", "\u0000", "😀"]) expect(await oidcUserId(ISSUER, sub)).toMatch(/^[0-9a-f]{8}\/[A-Za-z0-9._~+-]+$/);
  });

  it("a sub too long for LIMITS.userIdLength once escaped becomes '+' and its SHA-256, the same each time", async () => {
    const long = "ü".repeat(60);
    const id = await oidcUserId(ISSUER, long);
    expect(id).toMatch(/^[0-9a-f]{8}\/\+[A-Za-z0-9_-]{43}$/);
    expect(await oidcUserId(ISSUER, long)).toBe(id);
    expect(await oidcUserId(ISSUER, "x".repeat(255))).toHaveLength(8 + 2 + 43);
    expect((await oidcUserId(ISSUER, "x".repeat(LIMITS.userIdLength - 9))).length).toBe(LIMITS.userIdLength);
  });
});

describe("the allowed email domains", () => {
  const allowed = ["example.com"];
  const refused = (claims: Record<string, unknown>) => {
    try {
      checkEmailDomain(claims, allowed);
      return null;
    } catch (error) {
      return error;
    }
  };

  it("without a list, any account signs in", () => {
    expect(() => checkEmailDomain({}, [])).not.toThrow();
  });

  it("with a list, only a verified email at one of the domains (any case, not a subdomain)", () => {
    expect(refused({ email: "ann@Example.COM", email_verified: true })).toBeNull();
    for (const claims of [
      {},
      { email: "ann@example.com" },
      { email: "ann@example.com", email_verified: "true" },
      { email: "ann@example.com", email_verified: false },
      { email: "ann@sub.example.com", email_verified: true },
      { email: "ann@example.com.evil.test", email_verified: true },
      { email: "example.com", email_verified: true },
    ]) {
      const error = refused(claims);
      expect(error, JSON.stringify(claims)).toBeInstanceOf(SignInFailure);
      expect((error as SignInFailure).status).toBe(403);
    }
  });
});
