/**
 * End to end, sign-in through an OpenID Connect provider: the real Worker
 * under `wrangler dev`, configured only by OIDC_ISSUER, OIDC_CLIENT_ID and
 * OIDC_CLIENT_SECRET (the local sign-in off), and a real provider on loopback
 * (`oidc-provider`, test/support/oidc-upstream.ts). The official MCP SDK
 * client, given only the connector's URL, sends the person's browser to the
 * consent page; this file plays the browser (fetch, a cookie jar, redirects
 * followed by hand) through the consent, the provider's sign-in and the
 * connector's callback.
 *
 * A provider that is down is test/workers/oauth.test.ts's: the same Worker, its
 * issuer a port that refuses (a second `wrangler dev` cost five seconds of CPU).
 */
import { createHash } from "node:crypto";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orThrow, PersonApi } from "../../scripts/lib/person-api.js";
import { freePort, removeDir, startLocalServer, tempPersistDir, type LocalServer } from "../../scripts/local-server.js";
import { MemoryOAuthProvider, REDIRECT_URL } from "../support/memory-oauth-provider.js";
import { startUpstream, type Upstream } from "../support/oidc-upstream.js";

const CLIENT_ID = "notes-connector-e2e";
const CLIENT_SECRET = "e2e-client-secret-b1c9f0";
/** The provider's subject for the person signing in: a `|` as Auth0 writes its subjects, escaped in the user ID. */
const SUBJECT = "test|alice";
const NOTE_ID = "oidc-note";

let upstream: Upstream;
let connector: LocalServer;
let dir: string | undefined;

beforeAll(async () => {
  const [issuerPort, connectorPort] = [await freePort(), await freePort()];
  upstream = await startUpstream({ port: issuerPort, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: `http://127.0.0.1:${connectorPort}/oidc/callback` });
  dir = await tempPersistDir();
  const vars = { OIDC_ISSUER: upstream.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, LOCAL_SIGN_IN: "false" };
  connector = await startLocalServer({ port: connectorPort, persistTo: dir, vars });
}, 120_000);

afterAll(async () => {
  await Promise.all([connector?.stop(), upstream?.close()]);
  if (dir !== undefined) await removeDir(dir);
});

/** The user ID the connector must derive: the issuer's tag, then the subject with '|' escaped (docs/decisions.md). */
function expectedUser(): string {
  const tag = createHash("sha256").update(upstream.issuer).digest("hex").slice(0, 8);
  return `${tag}/test~7Calice`;
}

/** A browser: one cookie jar per host name (cookies ignore ports, as browsers do), redirects left to the caller. */
class Browser {
  readonly #jar = new Map<string, Map<string, string>>();

  get(url: URL): Promise<Response> {
    return this.#send(url, { method: "GET" });
  }

  post(url: URL, fields: Record<string, string | string[]>): Promise<Response> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) form.append(name, one);
    return this.#send(url, { method: "POST", body: form, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  }

  /** The cookies this browser holds for `url`'s host, as a Cookie header. */
  cookiesFor(url: URL): string {
    return [...(this.#jar.get(url.hostname) ?? new Map<string, string>())].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  async #send(url: URL, init: RequestInit): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookiesFor(url);
    if (cookie !== "") headers.set("Cookie", cookie);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    const jar = this.#jar.get(url.hostname) ?? new Map<string, string>();
    this.#jar.set(url.hostname, jar);
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=.*1970/i.test(a));
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(at + 1).trim());
    }
    return response;
  }
}

function location(response: Response, base: URL): URL {
  const value = response.headers.get("Location");
  if (value === null) throw new Error(`HTTP ${response.status} without a Location`);
  return new URL(value, base);
}

/**
 * The person, from the authorization URL the MCP client opened: the consent
 * page (allow every scope offered), then the provider's sign-in as `login` and
 * its consent, up to the provider's redirect back to the connector's callback,
 * which is answered but not followed. `cancel` presses the provider's Cancel instead.
 */
async function toCallback(browser: Browser, authorizeUrl: URL, options: { login?: string; cancel?: boolean } = {}): Promise<URL> {
  const consent = await browser.get(authorizeUrl);
  const html = await consent.text();
  expect(consent.status, html.slice(0, 500)).toBe(200);
  expect(html).not.toContain("name=user"); // no typed user name: the provider says who it is
  expect(html).toContain(`you sign in at <strong>${new URL(upstream.issuer).host}</strong>`);
  const handle = /name=handle value="([^"]+)"/.exec(html)?.[1] ?? "";
  const scopes = [...html.matchAll(/name=scope value="([^"]+)"/g)].map((m) => m[1] ?? "");
  const approved = await browser.post(authorizeUrl, { handle, decision: "approve", scope: scopes });
  expect(approved.status, await approved.clone().text()).toBe(302);
  let next = location(approved, authorizeUrl);
  expect(next.origin).toBe(upstream.issuer);
  expect(next.searchParams.get("code_challenge_method")).toBe("S256");
  for (let hops = 0; hops < 20; hops++) {
    if (next.pathname === "/oidc/callback") return next;
    const response = await browser.get(next);
    if (response.status >= 300 && response.status < 400) {
      next = location(response, next);
      continue;
    }
    const page = await response.text();
    expect(response.status, page.slice(0, 500)).toBe(200);
    const action = new URL(/action="([^"]+)"/.exec(page)?.[1] ?? "", next);
    if (options.cancel === true) {
      next = new URL(`${action.pathname}/abort`, next);
      continue;
    }
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const fields: Record<string, string> = prompt === "login" ? { prompt, login: options.login ?? SUBJECT, password: "any" } : { prompt };
    next = location(await browser.post(action, fields), action);
  }
  throw new Error("the browser never came back to the connector's callback");
}

/** The browser follows the provider's redirect to the callback: the connector's answer. */
async function visit(browser: Browser, callback: URL): Promise<{ status: number; location: URL | null; body: string }> {
  const response = await browser.get(callback);
  const value = response.headers.get("Location");
  return { status: response.status, location: value === null ? null : new URL(value), body: await response.text() };
}

/** The authorization code the client's redirect carries after a successful callback. */
function codeFrom(answer: { status: number; location: URL | null; body: string }): string {
  expect(answer.status, answer.body).toBe(302);
  expect(`${answer.location?.origin}${answer.location?.pathname}`).toBe(REDIRECT_URL);
  const code = answer.location?.searchParams.get("code");
  if (code === null || code === undefined) throw new Error(`no code in ${String(answer.location)}`);
  return code;
}

/** A refusal: a page with `status`, no redirect anywhere (no code for the client). */
function expectRefusal(answer: { status: number; location: URL | null; body: string }, status: number, says: RegExp): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.location).toBeNull();
  expect(answer.body).toMatch(/^<!doctype html>/);
  expect(answer.body).toMatch(says);
  expect(answer.body).not.toContain(CLIENT_SECRET);
}

/**
 * A fresh MCP client's authorization URL for `server`, as the SDK hands it to
 * the browser: it connects and lists the tools without a token, and its first
 * tool call meets the 401 that starts the sign-in.
 */
async function authorizationUrl(server: LocalServer, provider = new MemoryOAuthProvider()): Promise<URL> {
  const client = new Client({ name: "oidc-e2e", version: "0.1.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { authProvider: provider }));
  try {
    expect((await client.listTools()).tools).toHaveLength(11);
    expect(provider.redirects).toEqual([]);
    await expect(client.callTool({ name: "list_notes", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.redirects).toHaveLength(1);
    return provider.lastRedirect();
  } finally {
    await client.close();
  }
}

function structured(result: Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> {
  expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
  return result.structuredContent as Record<string, unknown>;
}

describe("sign-in through a real OpenID Connect provider", () => {
  it("the MCP client, given only the URL, signs in at the provider, consents, lists Notes and writes, as the provider's subject", async () => {
    const browser = new Browser();
    const user = expectedUser();

    // The person's app signs in the same way, for a token to the person's API, and creates a Note.
    const apiClient = new MemoryOAuthProvider();
    const apiUrl = `${connector.url}/api/v1`;
    expect(await auth(apiClient, { serverUrl: apiUrl })).toBe("REDIRECT");
    const apiCode = codeFrom(await visit(browser, await toCallback(browser, apiClient.lastRedirect())));
    expect(await auth(apiClient, { serverUrl: apiUrl, authorizationCode: apiCode })).toBe("AUTHORIZED");
    const appToken = apiClient.tokens()?.access_token ?? "";
    expect(appToken.split(":")[0]).toBe(user); // the library's token starts with the user ID it acts for
    const api = new PersonApi({ origin: connector.url, token: appToken });
    orThrow(await api.createNote({ note_id: NOTE_ID, title: "Signed in through OIDC" }), "create the Note");
    orThrow(await api.setApproval(NOTE_ID, { approved: true }), "approve the Note");
    const read = await api.request("GET", `/notes/${NOTE_ID}`);
    expect((read.body as { members: unknown }).members).toEqual([user]);

    // The MCP client: given only the MCP URL, it connects without a token; its first call
    // discovers and registers, and the browser signs in; then the same call succeeds.
    const mcpClient = new MemoryOAuthProvider();
    const transport = new StreamableHTTPClientTransport(new URL(connector.mcpUrl), { authProvider: mcpClient });
    const client = new Client({ name: "oidc-e2e", version: "0.1.0" });
    await client.connect(transport);
    try {
      const call = { name: "list_notes", arguments: {} };
      await expect(client.callTool(call)).rejects.toBeInstanceOf(UnauthorizedError);
      const tokenRequests = upstream.tokenRequests();
      await transport.finishAuth(codeFrom(await visit(browser, await toCallback(browser, mcpClient.lastRedirect()))));
      expect(upstream.tokenRequests()).toBe(tokenRequests + 1); // the connector redeemed the provider's code
      expect(mcpClient.tokens()?.access_token.split(":")[0]).toBe(user);

      const listed = structured(await client.callTool(call));
      expect((listed.notes as { note_id: string }[]).map((n) => n.note_id)).toEqual([NOTE_ID]);
      const tabs = structured(await client.callTool({ name: "list_note_tabs", arguments: { note_id: NOTE_ID } }));
      const created = structured(
        await client.callTool({
          name: "create_note_tab",
          arguments: { note_id: NOTE_ID, expected_version: tabs.version, idempotency_key: "oidc-e2e-1", tab_type: "slides", label: "From OIDC" },
        }),
      );
      expect(created).toMatchObject({ replayed: false, version: (tabs.version as number) + 1 });
    } finally {
      await client.close();
    }
    // The write landed in the subject's Note, seen from the person's app.
    const after = await api.request("GET", `/notes/${NOTE_ID}`);
    expect(JSON.stringify(after.body)).toContain("From OIDC");
  });

  it("the Notes page signs in through the provider too, and its session cookie reads the person's API as the provider's subject", async () => {
    const browser = new Browser();
    const started = await browser.get(new URL(`${connector.url}/notes/sign-in?return=/notes/${NOTE_ID}`));
    expect(started.status).toBe(302);
    const callback = await toCallback(browser, location(started, new URL(connector.url)));
    // The connector's callback grants and sends the browser on to the page's own callback.
    const granted = await visit(browser, callback);
    expect(granted.status, granted.body).toBe(302);
    expect(granted.location?.pathname).toBe("/notes/callback");
    const landed = await browser.get(granted.location as URL);
    expect(landed.status, await landed.clone().text()).toBe(303);
    expect(landed.headers.get("Location")).toBe(`/notes/${NOTE_ID}`);
    const read = await fetch(`${connector.url}/api/v1/notes`, { headers: { Cookie: browser.cookiesFor(new URL(connector.url)), "Sec-Fetch-Site": "same-origin" } });
    expect(read.status).toBe(200);
    const token = decodeURIComponent(/notes_session=([^;]+)/.exec(browser.cookiesFor(new URL(connector.url)))?.[1] ?? "");
    expect(token.split(":")[0]).toBe(expectedUser());
  });

  it("a forged state at the callback is refused with a page, and the real one still signs in", async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, await authorizationUrl(connector));
    const forged = new URL(callback);
    forged.searchParams.set("state", "forged-state-0000000000000000000000000000000");
    expectRefusal(await visit(browser, forged), 400, /not started in this browser/);
    codeFrom(await visit(browser, callback));
  });

  it("the same callback URL twice (a replayed code) is refused the second time, with its cookies still sent", async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, await authorizationUrl(connector));
    const cookies = browser.cookiesFor(callback);
    codeFrom(await visit(browser, callback));
    const tokenRequests = upstream.tokenRequests();
    const replay = await fetch(callback, { headers: { Cookie: cookies }, redirect: "manual" });
    expectRefusal({ status: replay.status, location: null, body: await replay.text() }, 400, /expired or was already used/);
    expect(replay.headers.get("Location")).toBeNull();
    expect(upstream.tokenRequests()).toBe(tokenRequests); // refused before the code was sent anywhere
  });

  it("a callback naming another issuer (RFC 9207, a mix-up) is refused with a page before any code is redeemed", async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, await authorizationUrl(connector));
    expect(callback.searchParams.get("iss")).toBe(upstream.issuer);
    callback.searchParams.set("iss", "https://impostor.example.com");
    const tokenRequests = upstream.tokenRequests();
    expectRefusal(await visit(browser, callback), 400, /came back from another provider/);
    expect(upstream.tokenRequests()).toBe(tokenRequests);
  });

  const forgeries = [
    { name: "a wrong nonce", change: { nonce: "not-the-nonce-this-browser-sent" }, says: /nonce is not the one this sign-in sent/ },
    { name: "another issuer", change: { iss: "https://impostor.example.com" }, says: /its iss claim is not what this connector expects/ },
    { name: "another audience", change: { aud: "some-other-client" }, says: /its aud claim is not what this connector expects/ },
    { name: "several audiences and azp another client", change: { aud: [CLIENT_ID, "some-other-client"], azp: "some-other-client" }, says: /issued to another client \(azp\)/ },
  ];
  for (const forgery of forgeries) {
    it(`an ID token, signed with the provider's key, with ${forgery.name} is refused with a page (502) and no grant`, async () => {
      const browser = new Browser();
      const callback = await toCallback(browser, await authorizationUrl(connector));
      upstream.rewriteNextIdToken((claims) => ({ ...claims, ...forgery.change }));
      expectRefusal(await visit(browser, callback), 502, forgery.says);
    });
  }

  it("the person cancelling at the provider (error=access_denied) gets a page saying nothing was granted", async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, await authorizationUrl(connector), { cancel: true });
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expectRefusal(await visit(browser, callback), 403, /cancelled or refused at the sign-in provider/);
  });
});
