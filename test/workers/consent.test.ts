/** The consent page: it names the client, the destination and the scopes, escapes what the client chose, and grants no more than the resource carries. */
import { describe, expect, it } from "vitest";
import { signIn } from "../../scripts/lib/sign-in.js";
import { rpc, tool, workerFetch } from "../support/workers.js";

const ORIGIN = "http://127.0.0.1:8787";
const send = (request: Request) => workerFetch(request);
/** A PKCE verifier; its S256 challenge is the one authorizeUrl sends. */
const VERIFIER = "consent-test-verifier-0123456789-abcdefghijklmnop";

async function register(name: string): Promise<string> {
  const response = await send(
    new Request(`${ORIGIN}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client_name: name, redirect_uris: ["http://127.0.0.1:9/callback"], token_endpoint_auth_method: "none" }),
    }),
  );
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, scope: string, extra: Record<string, string> = {}): URL {
  const url = new URL(`${ORIGIN}/authorize`);
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: "http://127.0.0.1:9/callback",
    scope,
    state: "st4te",
    code_challenge: "NulJSs-gFhXU6uWbZO-puqujB-XYmaK1jYPBlc10j48",
    code_challenge_method: "S256",
    resource: `${ORIGIN}/mcp`,
    ...extra,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
}

describe("the consent page", () => {
  it("names the client, where access goes, and each scope, with the client's text escaped", async () => {
    const clientId = await register('<script>alert("x")</script> Agent');
    const response = await send(new Request(authorizeUrl(clientId, "osfoundry:read osfoundry:write")));
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Frame-Options") ?? response.headers.get("Content-Security-Policy")).toBeTruthy();
    const html = await response.text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&#60;script&#62;");
    expect(html).toContain("127.0.0.1");
    expect(html).toContain("an app on your computer");
    expect(html).toContain('value="osfoundry:read"');
    expect(html).toContain('value="osfoundry:write"');
    expect(html).toMatch(/name=decision value=deny/);
  });

  it("sends a client's name as well-formed UTF-8, a lone surrogate shown as U+FFFD", async () => {
    const clientId = await register("Cut \ud800 Agent");
    const response = await send(new Request(authorizeUrl(clientId, "osfoundry:read")));
    expect(response.status).toBe(200);
    const html = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(await response.arrayBuffer());
    expect(html).toContain("<h1>Allow <bdi>Cut \ufffd Agent</bdi>?</h1>");
  });

  it("isolates a client's name so a right-to-left override in it cannot reverse the page's own words", async () => {
    const clientId = await register("\u202eEvil Agent");
    const html = await (await send(new Request(authorizeUrl(clientId, "osfoundry:read")))).text();
    expect(html).toContain("<h1>Allow <bdi>\u202eEvil Agent</bdi>?</h1>");
    expect(html).toContain("<strong><bdi>\u202eEvil Agent</bdi></strong> asks to use");
    // The title is plain text, where only the isolate characters FSI and PDI can fence the name in.
    expect(html).toContain("<title>Allow \u2068\u202eEvil Agent\u2069?</title>");
    const outside = html.replace(/<bdi>[^<]*<\/bdi>/g, "").replace(/\u2068[^\u2069]*\u2069/g, "");
    expect(outside).not.toContain("\u202e");
  });

  it("a client's name can neither end its isolate early nor leave one open: a stray PDI is dropped, an open isolate closed", async () => {
    const clientId = await register("A\u2069\u202eEvil \u2067ok\u2069 \u2067open");
    const html = await (await send(new Request(authorizeUrl(clientId, "osfoundry:read")))).text();
    expect(html).toContain("<h1>Allow <bdi>A\u202eEvil \u2067ok\u2069 \u2067open\u2069</bdi>?</h1>");
    expect(html).toContain("<title>Allow \u2068A\u202eEvil \u2067ok\u2069 \u2067open\u2069\u2069?</title>");
  });

  it("a name of only invisible or format characters is shown as (no name)", async () => {
    for (const name of ["\u200b", "\u202e\u2066", "\u3164\u115f", "\ufeff\u00ad", "   "]) {
      const clientId = await register(name);
      const html = await (await send(new Request(authorizeUrl(clientId, "osfoundry:read")))).text();
      expect({ name, heading: /<h1>.*<\/h1>/.exec(html)?.[0] }).toEqual({ name, heading: "<h1>Allow <bdi>(no name)</bdi>?</h1>" });
    }
  });

  it("refuses a plain PKCE challenge and a request without one", async () => {
    const clientId = await register("Agent");
    const cases: Record<string, string>[] = [{ code_challenge_method: "plain" }, { code_challenge: "" }];
    for (const extra of cases) {
      const response = await send(new Request(authorizeUrl(clientId, "osfoundry:read", extra), { redirect: "manual" }));
      expect([302, 400]).toContain(response.status);
      if (response.status === 302) expect(response.headers.get("Location")).toContain("error=");
      else expect(await response.text()).not.toContain("name=handle");
    }
  });

  it("grants an MCP token no scope of the app, whatever the client asks for", async () => {
    const tokens = await signIn({ origin: ORIGIN, user: "alice", scopes: ["osfoundry:app", "osfoundry:read"], fetch: send });
    expect(tokens.scope.split(" ")).toEqual(["osfoundry:read"]);
    expect((await tool("list_notes", {}, tokens.access_token)).isError).toBe(false);
  });

  it("a user who unticks write gets a read-only token", async () => {
    const tokens = await signIn({ origin: ORIGIN, user: "alice", scopes: ["osfoundry:read"], fetch: send });
    const response = await rpc("tools/call", { name: "create_note_tab", arguments: { note_id: "x", expected_version: 1, idempotency_key: "k", tab_type: "slides" } }, tokens.access_token);
    expect(response.status).toBe(403);
  });

  it("grants only scopes the page offered, and approving none is a denial", async () => {
    const clientId = await register("Agent");
    const url = authorizeUrl(clientId, "osfoundry:read");
    for (const [ticked, expected] of [[["osfoundry:read", "osfoundry:write", "osfoundry:app"], "code"], [[], "access_denied"]] as const) {
      const page = await send(new Request(url));
      const html = await page.text();
      expect(html).not.toContain('value="osfoundry:write"');
      const handle = /name=handle value="([^"]+)"/.exec(html)?.[1] ?? "";
      const form = new URLSearchParams({ handle, decision: "approve", user: "alice" });
      for (const scope of ticked) form.append("scope", scope);
      const cookie = (page.headers.get("Set-Cookie") ?? "").split(";", 1)[0] ?? "";
      const answer = await send(new Request(url, { method: "POST", body: form, redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie } }));
      expect(answer.status).toBe(302);
      const location = new URL(answer.headers.get("Location") ?? "");
      if (expected === "access_denied") {
        expect(location.searchParams.get("error")).toBe("access_denied");
        expect(location.searchParams.get("code")).toBeNull();
        continue;
      }
      const code = location.searchParams.get("code") ?? "";
      const token = await send(
        new Request(`${ORIGIN}/oauth/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: "http://127.0.0.1:9/callback", client_id: clientId, code_verifier: VERIFIER, resource: `${ORIGIN}/mcp` }),
        }),
      );
      const granted = (await token.json()) as { scope?: string };
      expect(granted, JSON.stringify(granted)).toMatchObject({ scope: "osfoundry:read" });
    }
  });

  it("a consent POST that is not a form gets a 400 page saying so, not a 500", async () => {
    const url = authorizeUrl(await register("Agent"), "osfoundry:read");
    const bodies: [string, RequestInit][] = [
      ["JSON", { headers: { "Content-Type": "application/json" }, body: JSON.stringify({ handle: "h", decision: "approve" }) }],
      ["multipart without a boundary", { headers: { "Content-Type": "multipart/form-data" }, body: "handle=h" }],
      ["multipart with a broken body", { headers: { "Content-Type": "multipart/form-data; boundary=zz" }, body: "garbage" }],
      ["no body", {}],
      ["text", { headers: { "Content-Type": "text/plain" }, body: "handle=h&decision=approve" }],
    ];
    for (const [what, init] of bodies) {
      const response = await send(new Request(url, { method: "POST", redirect: "manual", ...init }));
      const html = await response.text();
      expect({ what, status: response.status }).toEqual({ what, status: 400 });
      expect(html).toContain("The consent form could not be read");
    }
  });

  it("a consent POST larger than any consent form gets 413, and a page", async () => {
    const url = authorizeUrl(await register("Agent"), "osfoundry:read");
    const big = new URLSearchParams({ handle: "h", decision: "approve", user: "alice", pad: "x".repeat(100_000) });
    const response = await send(new Request(url, { method: "POST", body: big, headers: { "Content-Type": "application/x-www-form-urlencoded" } }));
    expect(response.status).toBe(413);
    expect(await response.text()).toContain("larger than");
  });
});
