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
        allowedOrigins: [],
        idempotencyRetentionMs: 7 * 24 * 60 * 60 * 1000,
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
    });
    expect(settings).toEqual({
      publicUrl: "https://notes.example.com",
      accessTokenTtlSeconds: 600,
      localSignIn: null,
      allowedOrigins: ["http://localhost:6274", "https://app.example.com"],
      idempotencyRetentionMs: 3000,
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
});
