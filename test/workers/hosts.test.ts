/** Which origins the Worker answers for: a Host it does not serve is a clear 421, never a 500, and never grows its memory. */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { cachedSetupCount } from "../../src/auth/oauth.js";
import worker from "../../src/index.js";
import { workerFetch } from "../support/workers.js";

const send = (url: string, init?: RequestInit) => workerFetch(new Request(url, init));

async function answer(response: Response): Promise<{ status: number; body: any }> {
  const text = await response.text();
  return { status: response.status, body: (response.headers.get("Content-Type") ?? "").includes("json") ? JSON.parse(text) : text };
}

describe("without PUBLIC_URL (local development)", () => {
  it("a foreign host gets 421 naming what this server serves, on every route", async () => {
    for (const path of ["/", "/mcp", "/.well-known/oauth-authorization-server", "/authorize", "/oauth/token", "/api/v1/notes"]) {
      for (const origin of ["http://evil.example", "https://evil.example", "http://127.0.0.1.nip.io:8787"]) {
        const { status, body } = await answer(await send(`${origin}${path}`));
        expect({ path, origin, status, code: body.error?.code }).toEqual({ path, origin, status: 421, code: "misdirected_request" });
        expect(body.error.message).toContain("loopback");
      }
    }
  });

  it("odd hosts answer 421 or are served as the loopback origin they are; none answers 500", async () => {
    const served: Record<string, string> = {
      "http://[::1]:8787": "http://[::1]:8787",
      "http://localhost": "http://localhost",
      "http://LOCALHOST:65535": "http://localhost:65535",
      "http://127.1:8787": "http://127.0.0.1:8787",
      "http://0x7f000001:8787": "http://127.0.0.1:8787",
      "http://127.0.0.2:80": "http://127.0.0.2",
      "https://localhost:8443": "https://localhost:8443",
    };
    for (const [origin, issuer] of Object.entries(served)) {
      const { status, body } = await answer(await send(`${origin}/.well-known/oauth-authorization-server`));
      expect({ origin, status, issuer: body.issuer }).toEqual({ origin, status: 200, issuer });
    }
    const misdirected = [
      "http://[2001:db8::1]:8787",
      "http://[::ffff:127.0.0.1]:8787",
      "http://localhost.:8787",
      `http://${"a".repeat(63)}.${"b".repeat(63)}.example:8787`,
      "http://xn--exmple-cua.com",
      "http://exämple.com",
      "http://0.0.0.0:8787",
      "http://127.0.0.1.example",
    ];
    for (const origin of misdirected) {
      const { status, body } = await answer(await send(`${origin}/`));
      expect({ origin, status, code: body.error?.code }).toEqual({ origin, status: 421, code: "misdirected_request" });
    }
  });

  it("a flood of distinct hosts and ports does not grow the per-origin OAuth setups", async () => {
    for (let i = 0; i < 100; i++) expect((await send(`http://host-${i}.example/`)).status).toBe(421);
    for (let i = 0; i < 12; i++) expect((await send(`http://127.0.0.1:${10_000 + i}/`)).status).toBe(200);
    // Each loopback port is an origin of its own; the least recently used ones make room.
    expect(cachedSetupCount()).toBe(8);
    // The origin in use keeps working after the flood.
    const metadata = await answer(await send("http://127.0.0.1:8787/.well-known/oauth-authorization-server"));
    expect(metadata.body.issuer).toBe("http://127.0.0.1:8787");
  });
});

describe("with PUBLIC_URL", () => {
  const deployed = { ...env, PUBLIC_URL: "https://notes.example.com", LOCAL_SIGN_IN: "false", RATE_LIMITS: "on" };
  const call = (url: string, settings: object = deployed) => worker.fetch(new Request(url), settings as typeof env, createExecutionContext());

  it("serves its own host with its own issuer, and answers 421 for any other", async () => {
    const own = await answer(await call("https://notes.example.com/.well-known/oauth-authorization-server"));
    expect(own).toMatchObject({ status: 200, body: { issuer: "https://notes.example.com" } });
    for (const origin of ["https://evil.example", "http://127.0.0.1:8787", "https://notes.example.com:8443"]) {
      const { status, body } = await answer(await call(`${origin}/`));
      expect({ origin, status, code: body.error?.code }).toEqual({ origin, status: 421, code: "misdirected_request" });
      expect(body.error.message).toContain("https://notes.example.com");
    }
  });

  it("an invalid setting answers 503 naming the variable, instead of running on a default nobody chose", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ PUBLIC_URL: "notes.example.com" }, "PUBLIC_URL"],
      [{ PUBLIC_URL: "http://notes.example.com" }, "PUBLIC_URL"],
      [{ PUBLIC_URL: "https://notes.example.com/connector" }, "PUBLIC_URL"],
      [{ ACCESS_TOKEN_TTL_SECONDS: "1h" }, "ACCESS_TOKEN_TTL_SECONDS"],
      [{ LOCAL_SIGN_IN: "yes" }, "LOCAL_SIGN_IN"],
      [{ ALLOWED_ORIGINS: "localhost:6274" }, "ALLOWED_ORIGINS"],
      [{ IDEMPOTENCY_RETENTION_SECONDS: "-5" }, "IDEMPOTENCY_RETENTION_SECONDS"],
      [{ PUBLIC_URL: "https://notes.example.com", LOCAL_SIGN_IN: "true" }, "LOCAL_SIGN_IN"],
      // The local sign-in left on beside an OpenID provider (env carries dev/local.env's LOCAL_SIGN_IN='true').
      [{ OIDC_ISSUER: "https://login.example.com", OIDC_CLIENT_ID: "c", OIDC_CLIENT_SECRET: "s3cret-value" }, "LOCAL_SIGN_IN"],
      [{ LOCAL_SIGN_IN: "false", OIDC_ISSUER: "https://login.example.com" }, "OIDC_CLIENT_ID"],
      [{ LOCAL_SIGN_IN: "false", OIDC_CLIENT_SECRET: "s3cret-value" }, "OIDC_CLIENT_SECRET"],
    ];
    for (const [variables, name] of cases) {
      const { status, body } = await answer(await call("http://127.0.0.1:8787/", { ...env, ...variables }));
      expect({ variables, status, code: body.error?.code }).toEqual({ variables, status: 503, code: "misconfigured" });
      expect(body.error.message).toContain(name);
      expect(body.error.message).not.toContain("s3cret-value");
    }
  });

  it("without any identity configured, /authorize answers its 501 page", async () => {
    const response = await call("https://notes.example.com/authorize?client_id=x");
    expect(response.status).toBe(501);
    expect(await response.text()).toContain("OIDC_ISSUER");
  });
});
