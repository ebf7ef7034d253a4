/** The Worker's settings: defaults when unset, the values as wrangler hands them over, and every invalid one named instead of replaced. */
import { describe, expect, it } from "vitest";
import { parseSettings } from "../../src/settings.js";

describe("settings", () => {
  it("an unset or empty variable takes its default", () => {
    for (const env of [{}, { PUBLIC_URL: "", ACCESS_TOKEN_TTL_SECONDS: " ", LOCAL_SIGN_IN: "", ALLOWED_ORIGINS: "", IDEMPOTENCY_RETENTION_SECONDS: "" }]) {
      expect(parseSettings(env)).toEqual({
        publicUrl: null,
        accessTokenTtlSeconds: 3600,
        localSignIn: null,
        oidc: null,
        allowedOrigins: [],
        idempotencyRetentionMs: 7 * 24 * 60 * 60 * 1000,
        rateLimits: true,
        problems: [],
      });
    }
  });

  it("reads numbers and booleans as wrangler's --var hands them over, and normalizes origins", () => {
    const settings = parseSettings({
      PUBLIC_URL: "https://Notes.Example.com/",
      ACCESS_TOKEN_TTL_SECONDS: 600,
      LOCAL_SIGN_IN: false,
      ALLOWED_ORIGINS: " http://LOCALHOST:6274 , https://app.example.com:443 ",
      IDEMPOTENCY_RETENTION_SECONDS: 3,
      RATE_LIMITS: "on",
    });
    expect(settings).toEqual({
      publicUrl: "https://notes.example.com",
      accessTokenTtlSeconds: 600,
      localSignIn: null,
      oidc: null,
      allowedOrigins: ["http://localhost:6274", "https://app.example.com"],
      idempotencyRetentionMs: 3000,
      rateLimits: true,
      problems: [],
    });
    expect(parseSettings({ LOCAL_SIGN_IN: true, LOCAL_USER: "bob", PUBLIC_URL: "http://127.0.0.1:8787" }).localSignIn).toEqual({ defaultUser: "bob" });
  });

  it("an invalid value is a problem naming the variable, and its default stays in force", () => {
    const settings = parseSettings({ ACCESS_TOKEN_TTL_SECONDS: "3600.5", LOCAL_USER: "Alice Smith", IDEMPOTENCY_RETENTION_SECONDS: "0", PUBLIC_URL: "https://user:pw@notes.example.com" });
    expect(settings.accessTokenTtlSeconds).toBe(3600);
    expect(settings.publicUrl).toBeNull();
    expect(settings.idempotencyRetentionMs).toBe(7 * 24 * 60 * 60 * 1000);
    expect(settings.problems.map((p) => p.split(" ")[0])).toEqual(["PUBLIC_URL", "ACCESS_TOKEN_TTL_SECONDS", "LOCAL_USER", "IDEMPOTENCY_RETENTION_SECONDS"]);
    expect(settings.problems[1]).toContain('"3600.5"');
  });

  describe("OpenID Connect", () => {
    const complete = { OIDC_ISSUER: "https://login.example.com/realms/acme", OIDC_CLIENT_ID: "notes-connector", OIDC_CLIENT_SECRET: "s3cret-value" };

    it("reads the issuer as written, the client, the secret and the allowed domains in lower case", () => {
      const settings = parseSettings({ ...complete, OIDC_ALLOWED_EMAIL_DOMAINS: " Example.com, corp.example.org " });
      expect(settings.problems).toEqual([]);
      expect(settings.oidc).toEqual({
        issuer: "https://login.example.com/realms/acme",
        clientId: "notes-connector",
        clientSecret: "s3cret-value",
        allowedEmailDomains: ["example.com", "corp.example.org"],
      });
      expect(parseSettings({ ...complete, OIDC_ISSUER: "http://127.0.0.1:8900" }).oidc?.issuer).toBe("http://127.0.0.1:8900");
    });

    it("an issuer without its client or secret, or a client without an issuer, is a problem; the secret's value is never shown", () => {
      expect(parseSettings({ OIDC_ISSUER: complete.OIDC_ISSUER }).problems.map((p) => p.split(" ")[0])).toEqual(["OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"]);
      expect(parseSettings({ OIDC_CLIENT_SECRET: "s3cret-value" }).problems).toEqual([
        "OIDC_CLIENT_SECRET is set but OIDC_ISSUER is not: set the issuer too, or remove it",
      ]);
      const bad = parseSettings({ ...complete, OIDC_CLIENT_SECRET: "has a space" });
      expect(bad.oidc).toBeNull();
      expect(bad.problems.join()).not.toContain("has a space");
    });

    it("an issuer over plain http off loopback, with a query, or not a URL, and a bad domain list, are problems", () => {
      for (const issuer of ["http://login.example.com", "https://login.example.com?x=1", "login.example.com"]) {
        const settings = parseSettings({ ...complete, OIDC_ISSUER: issuer });
        expect(settings.oidc, issuer).toBeNull();
        expect(settings.problems[0], issuer).toMatch(/^OIDC_ISSUER /);
      }
      for (const domains of ["@example.com", ",,", "example"]) {
        expect(parseSettings({ ...complete, OIDC_ALLOWED_EMAIL_DOMAINS: domains }).problems[0], domains).toMatch(/^OIDC_ALLOWED_EMAIL_DOMAINS /);
      }
    });

    it("the local sign-in together with an OpenID provider is a problem", () => {
      expect(parseSettings({ ...complete, LOCAL_SIGN_IN: "true" }).problems).toEqual([
        "LOCAL_SIGN_IN must not be true with OIDC_ISSUER set: the local sign-in trusts any typed user name",
      ]);
      expect(parseSettings({ ...complete, LOCAL_SIGN_IN: false }).problems).toEqual([]);
    });
  });

  it("RATE_LIMITS is on or off; off only without a public PUBLIC_URL, so a deployment cannot serve without its limits", () => {
    expect(parseSettings({ RATE_LIMITS: "off" })).toMatchObject({ rateLimits: false, problems: [] });
    expect(parseSettings({ RATE_LIMITS: "off", PUBLIC_URL: "http://127.0.0.1:8787" })).toMatchObject({ rateLimits: false, problems: [] });
    const deployed = parseSettings({ RATE_LIMITS: "off", PUBLIC_URL: "https://notes.example.com" });
    expect(deployed.problems).toEqual([expect.stringMatching(/^RATE_LIMITS must not be off with a public PUBLIC_URL/)]);
    const typo = parseSettings({ RATE_LIMITS: "false" });
    expect(typo).toMatchObject({ rateLimits: true, problems: [expect.stringMatching(/^RATE_LIMITS must be "on" or "off"/)] });
  });
});
