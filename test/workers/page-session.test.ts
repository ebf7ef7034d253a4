/** The Notes page's session: sign-in with PKCE as this server's own client, the cookie it leaves, the bridge into /api/v1, sign-out, and agents' names in their grants. */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { base64url, sha256 } from "../../src/auth/base64url.js";
import { oauthFor } from "../../src/auth/oauth.js";
import { pageClientKey } from "../../src/http/page-session.js";
import { settingsOf } from "../../src/settings.js";
import { signIn } from "../../scripts/lib/sign-in.js";
import { allowOnConsentPage, CookieJar, navigate, pageSignIn, setCookies } from "../support/page-browser.js";
import { api, newNote, signInAs, TOKENS, workerFetch } from "../support/workers.js";

beforeAll(() => signInAs("agent", "app"));

const ORIGIN = "http://127.0.0.1:8787";
const send = (request: Request) => workerFetch(request);

/** A signed-in browser: its jar holds notes_session (and notes_refresh). */
async function signedIn(user = "alice", back = "/notes/demo"): Promise<{ jar: CookieJar; landed: Response }> {
  const jar = new CookieJar();
  const { landed } = await pageSignIn(send, ORIGIN, jar, user, back);
  return { jar, landed };
}

/** GET /api/v1/notes with these cookies and headers: the status. */
async function listNotes(cookie: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await send(new Request(`${ORIGIN}/api/v1/notes`, { headers: { Cookie: cookie, ...headers } }));
  await response.body?.cancel();
  return response.status;
}

const sessionCookie = (jar: CookieJar) => `notes_session=${jar.get("notes_session")}`;

describe("starting the page's sign-in", () => {
  it("sends the browser to this server's authorization endpoint with PKCE S256, a state, scope osfoundry:app and resource /api/v1", async () => {
    const jar = new CookieJar();
    const response = await navigate(send, `${ORIGIN}/notes/sign-in?return=${encodeURIComponent("/notes/demo?tab=x")}`, jar);
    expect(response.status).toBe(302);
    const to = new URL(response.headers.get("Location") ?? "");
    expect(`${to.origin}${to.pathname}`).toBe(`${ORIGIN}/authorize`);
    const params = Object.fromEntries(to.searchParams);
    expect(params).toMatchObject({
      response_type: "code",
      redirect_uri: `${ORIGIN}/notes/callback`,
      scope: "osfoundry:app",
      code_challenge_method: "S256",
      resource: `${ORIGIN}/api/v1`,
    });
    expect(params.state).toMatch(/^[\w-]{20,}$/);
    expect(params.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(params.client_id).toBe(await env.OAUTH_KV.get(pageClientKey(ORIGIN)));

    const flowLine = setCookies(response).find((line) => line.startsWith("notes_sign_in="));
    expect(flowLine).toMatch(/HttpOnly/);
    expect(flowLine).toMatch(/Path=\/notes\/callback/);
    expect(flowLine).toMatch(/SameSite=Lax/);
    expect(flowLine).toMatch(/Max-Age=600/);
    // The cookie's verifier is the one whose S256 digest the authorization server was sent.
    const flow = JSON.parse(atob((jar.get("notes_sign_in") ?? "").replace(/-/g, "+").replace(/_/g, "/")));
    expect(flow).toMatchObject({ state: params.state, client_id: params.client_id, return: "/notes/demo?tab=x" });
    expect(base64url(await sha256(flow.verifier))).toBe(params.code_challenge);
  });

  it("registers the page as a client once per origin, named osFoundry Notes page, public, redirecting only to /notes/callback", async () => {
    const first = new URL((await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/a`, new CookieJar())).headers.get("Location") ?? "");
    const second = new URL((await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/b`, new CookieJar())).headers.get("Location") ?? "");
    const clientId = first.searchParams.get("client_id") ?? "";
    expect(second.searchParams.get("client_id")).toBe(clientId);
    expect(second.searchParams.get("state")).not.toBe(first.searchParams.get("state"));
    const client = await oauthApi().lookupClient(clientId);
    expect(client).toMatchObject({ clientName: "osFoundry Notes page", redirectUris: [`${ORIGIN}/notes/callback`], tokenEndpointAuthMethod: "none" });
  });

  it("shows the local consent page, which names the page as this server's own instead of warning of an unverified app", async () => {
    const jar = new CookieJar();
    const started = await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, jar);
    const consent = await navigate(send, started.headers.get("Location") ?? "", jar);
    expect(consent.status).toBe(200);
    const html = await consent.text();
    expect(html).toContain("<strong><bdi>osFoundry Notes page</bdi></strong> asks to use your osFoundry Notes app API");
    expect(html).toContain("this server's own Notes page");
    expect(html).not.toContain("not verified");
    expect(html).not.toContain("an app on your computer");
    expect(html).toContain('value="osfoundry:app" checked');
    expect(html).toMatch(/<input name=user value="alice"/);
  });

  it("refuses to send the browser anywhere but a path under /notes/ on this origin (no open redirect)", async () => {
    const refused = [
      undefined,
      "",
      "notes/demo",
      "//evil.example/notes/demo",
      "/\\evil.example/notes/demo",
      "https://evil.example/notes/demo",
      "http://127.0.0.1:8787/notes/demo",
      "/notes/../api/v1/notes",
      "/notes/%2e%2e/oauth/token",
      "/api/v1/notes",
      "/notes",
      "/notes/sign-in",
      "/notes/callback",
    ];
    for (const back of refused) {
      const query = back === undefined ? "" : `?return=${encodeURIComponent(back)}`;
      const response = await navigate(send, `${ORIGIN}/notes/sign-in${query}`, new CookieJar());
      expect(response.status, String(back)).toBe(400);
      expect(response.headers.get("Location"), String(back)).toBeNull();
      expect(setCookies(response), String(back)).toEqual([]);
      expect(await response.text()).toContain("return");
    }
  });
});

describe("the page's own route names", () => {
  it("are no Note's ID: creating a Note named sign-in, callback or sign-out is refused, naming note_id, and writes nothing", async () => {
    for (const name of ["sign-in", "callback", "sign-out"]) {
      const created = await api("POST", "/notes", { note_id: name, title: "Taken" });
      expect({ name, status: created.status, path: created.body.error?.issues?.[0]?.path }).toEqual({ name, status: 400, path: "note_id" });
      expect((await api("GET", `/notes/${name}`)).status).toBe(404);
    }
  });
});

describe("the callback", () => {
  it("after the local consent page, sets an HttpOnly SameSite=Strict session cookie for the whole origin and returns to the Note", async () => {
    const jar = new CookieJar();
    const { landed, callback } = await pageSignIn(send, ORIGIN, jar, "alice", "/notes/demo");
    expect(`${callback.origin}${callback.pathname}`).toBe(`${ORIGIN}/notes/callback`);
    expect(landed.status).toBe(303);
    expect(landed.headers.get("Location")).toBe("/notes/demo");
    const lines = setCookies(landed);
    const session = lines.find((line) => line.startsWith("notes_session="));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).toMatch(/Path=\/(;|$)/);
    expect(session).toMatch(/Max-Age=\d+/);
    expect(session).not.toMatch(/Secure/); // http://127.0.0.1: a Secure cookie would never come back
    expect(lines.find((line) => line.startsWith("notes_refresh="))).toMatch(/Path=\/notes;.*HttpOnly/);
    // The flow cookie is used up.
    expect(jar.get("notes_sign_in")).toBeUndefined();
    expect(await listNotes(sessionCookie(jar), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
  });

  it("refuses a wrong state, a missing state or no flow cookie, and sets no session", async () => {
    const cases: { name: string; url: (callback: URL) => string; dropFlow?: boolean }[] = [
      { name: "wrong state", url: (u) => withParam(u, "state", "not-the-state") },
      { name: "no state", url: (u) => withoutParam(u, "state") },
      { name: "no flow cookie", url: (u) => u.href, dropFlow: true },
    ];
    for (const { name, url, dropFlow } of cases) {
      const { jar, callback } = await stopAtCallback();
      const browser = dropFlow === true ? new CookieJar() : jar;
      const response = await navigate(send, url(callback), browser);
      expect(response.status, name).toBe(400);
      expect(response.headers.get("Location"), name).toBeNull();
      expect(setCookies(response).filter((line) => /^notes_(session|refresh)=/.test(line)), name).toEqual([]);
      expect(await response.text(), name).toContain("not started in this browser");
      expect(browser.get("notes_session"), name).toBeUndefined();
    }
  });

  it("refuses a flow cookie whose return path was changed to leave /notes/ (a cookie a neighbouring site could set)", async () => {
    const { jar, callback } = await stopAtCallback();
    const flow = JSON.parse(atob((jar.get("notes_sign_in") ?? "").replace(/-/g, "+").replace(/_/g, "/")));
    jar.set("notes_sign_in", base64url(new TextEncoder().encode(JSON.stringify({ ...flow, return: "//evil.example/notes/x" }))));
    const response = await navigate(send, callback.href, jar);
    expect(response.status).toBe(400);
    expect(response.headers.get("Location")).toBeNull();
    expect(jar.get("notes_session")).toBeUndefined();
  });

  it("refuses a code answered by another issuer (RFC 9207) and a reused code", async () => {
    const other = await stopAtCallback();
    const mixed = await navigate(send, withParam(other.callback, "iss", "https://evil.example"), other.jar);
    expect(mixed.status).toBe(400);
    expect(other.jar.get("notes_session")).toBeUndefined();

    const { jar, callback } = await stopAtCallback();
    const flow = jar.get("notes_sign_in") ?? "";
    expect((await navigate(send, callback.href, jar)).status).toBe(303);
    const replay = new CookieJar();
    replay.set("notes_sign_in", flow);
    const again = await navigate(send, callback.href, replay);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("authorization code was refused");
    expect(replay.get("notes_session")).toBeUndefined();
  });

  it("answers a denied consent with a page to sign in again, and no session", async () => {
    const jar = new CookieJar();
    const started = await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, jar);
    const authorize = new URL(started.headers.get("Location") ?? "");
    const consent = await navigate(send, authorize.href, jar);
    const handle = /name=handle value="([^"]+)"/.exec(await consent.text())?.[1] ?? "";
    const denied = await send(
      new Request(authorize, { method: "POST", redirect: "manual", body: new URLSearchParams({ handle, decision: "deny" }), headers: { Cookie: jar.header(), "Content-Type": "application/x-www-form-urlencoded" } }),
    );
    const back = await navigate(send, denied.headers.get("Location") ?? "", jar);
    expect(back.status).toBe(403);
    expect(await back.text()).toContain('href="/notes/sign-in?return=%2Fnotes%2Fdemo"');
    expect(jar.get("notes_session")).toBeUndefined();
  });
});

describe("on https", () => {
  it("marks every cookie Secure with its prefix (__Host-, __Secure-), and registers the page once for that origin, apart from another origin's", async () => {
    const origin = "https://localhost:8443";
    const jar = new CookieJar();
    const { authorize, landed } = await pageSignIn(send, origin, jar, "alice", "/notes/demo");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${origin}/notes/callback`);
    expect(authorize.searchParams.get("resource")).toBe(`${origin}/api/v1`);
    expect(authorize.searchParams.get("client_id")).toBe(await env.OAUTH_KV.get(pageClientKey(origin)));
    expect(authorize.searchParams.get("client_id")).not.toBe(await env.OAUTH_KV.get(pageClientKey(ORIGIN)));
    const lines = setCookies(landed);
    // With the prefixes browsers enforce: a neighbouring subdomain cannot plant a cookie of these names.
    expect(lines.filter((line) => /^(__Host-notes_session|__Secure-notes_refresh)=/.test(line))).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/; Secure/);
    const token = jar.get("__Host-notes_session");
    const read = (cookie: string) => send(new Request(`${origin}/api/v1/notes`, { headers: { Cookie: cookie, Origin: origin } }));
    expect((await read(`__Host-notes_session=${token}`)).status).toBe(200);
    // The unprefixed name, which another site on the parent domain could set, is not read on https.
    expect((await read(`notes_session=${token}`)).status).toBe(401);
  });
});

describe("the cookie bridge into /api/v1", () => {
  it("uses the session cookie only when the browser says the request comes from this origin", async () => {
    const { jar } = await signedIn();
    const cookie = sessionCookie(jar);
    expect(await listNotes(cookie, { "Sec-Fetch-Site": "same-origin" })).toBe(200);
    expect(await listNotes(cookie, { Origin: ORIGIN })).toBe(200);
    expect(await listNotes(cookie)).toBe(401);
    expect(await listNotes(cookie, { "Sec-Fetch-Site": "cross-site" })).toBe(401);
    expect(await listNotes(cookie, { "Sec-Fetch-Site": "same-site" })).toBe(401);
    expect(await listNotes(cookie, { Origin: "https://evil.example" })).toBe(401);
    expect(await listNotes(cookie, { Origin: "http://127.0.0.1:8788" })).toBe(401);
    // Sec-Fetch-Site decides when a browser sends it.
    expect(await listNotes(cookie, { "Sec-Fetch-Site": "cross-site", Origin: ORIGIN })).toBe(401);
  });

  it("writes through the person's API as the signed-in user", async () => {
    const { jar } = await signedIn("carol");
    const noteId = `page-${crypto.randomUUID()}`;
    const created = await send(
      new Request(`${ORIGIN}/api/v1/notes`, {
        method: "POST",
        headers: { Cookie: sessionCookie(jar), Origin: ORIGIN, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json" },
        body: JSON.stringify({ note_id: noteId, title: "Carol's" }),
      }),
    );
    expect(created.status).toBe(201);
    // Carol's own list has it; alice's does not.
    const mine = await send(new Request(`${ORIGIN}/api/v1/notes`, { headers: { Cookie: sessionCookie(jar), "Sec-Fetch-Site": "same-origin" } }));
    expect(JSON.stringify(await mine.json())).toContain(noteId);
    const alices = await send(new Request(`${ORIGIN}/api/v1/notes`, { headers: { Authorization: `Bearer ${TOKENS.app}` } }));
    expect(JSON.stringify(await alices.json())).not.toContain(noteId);
    // The change log tells the page's write as the person's, not an agent's.
    const log = await send(new Request(`${ORIGIN}/api/v1/notes/${noteId}/changes?since_version=0`, { headers: { Cookie: sessionCookie(jar), "Sec-Fetch-Site": "same-origin" } }));
    expect(((await log.json()) as any).changes).toEqual([expect.objectContaining({ version: 1, operation: "create_note", actor: { kind: "person", user: "carol" } })]);
  });

  it("never overrides an Authorization header the request carries", async () => {
    const { jar } = await signedIn();
    expect(await listNotes(sessionCookie(jar), { "Sec-Fetch-Site": "same-origin", Authorization: "Bearer not-a-token" })).toBe(401);
    expect(await listNotes("notes_session=garbage", { "Sec-Fetch-Site": "same-origin", Authorization: `Bearer ${TOKENS.app}` })).toBe(200);
  });

  it("refuses a cookie holding a token for /mcp (audience), and a made-up one", async () => {
    expect(await listNotes(`notes_session=${encodeURIComponent(TOKENS.agent)}`, { "Sec-Fetch-Site": "same-origin" })).toBe(401);
    expect(await listNotes("notes_session=alice:abc:def", { "Sec-Fetch-Site": "same-origin" })).toBe(401);
  });

  it("bridges a WebSocket upgrade from this origin (the Origin is all it carries)", async () => {
    const { jar } = await signedIn();
    // No live route on this branch: what matters is that the resource server let the request through (404, not 401).
    const upgrade = (origin: string) =>
      send(new Request(`${ORIGIN}/api/v1/notes/no-such-note/live`, { headers: { Cookie: sessionCookie(jar), Origin: origin, Upgrade: "websocket", Connection: "Upgrade" } }));
    const ours = await upgrade(ORIGIN);
    expect(ours.status).not.toBe(401);
    const foreign = await upgrade("https://evil.example");
    expect(foreign.status).toBe(401);
  });
});

describe("sessions over time", () => {
  it("a sign-in in another browser leaves the first browser's session working", async () => {
    const laptop = await signedIn("alice");
    const phone = await signedIn("alice");
    expect(await listNotes(sessionCookie(phone.jar), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
    expect(await listNotes(sessionCookie(laptop.jar), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
  });

  it("an expired session signs in again with the refresh token, without the consent page", async () => {
    const { jar } = await signedIn();
    const old = jar.get("notes_session");
    const oldRefresh = jar.get("notes_refresh");
    // What a browser holds once the access token's Max-Age has passed: the refresh cookie alone.
    const browser = new CookieJar();
    browser.set("notes_refresh", oldRefresh ?? "");
    const response = await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, browser);
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/notes/demo");
    expect(browser.get("notes_session")).toBeDefined();
    expect(browser.get("notes_session")).not.toBe(old);
    expect(browser.get("notes_refresh")).not.toBe(oldRefresh);
    expect(await listNotes(sessionCookie(browser), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
  });

  it("a refresh token replayed after its successor was used revokes the grant (RFC 9700 §4.14.2), as at the token endpoint", async () => {
    const { jar } = await signedIn();
    const first = jar.get("notes_refresh") ?? "";
    const refreshWith = async (token: string) => {
      const browser = new CookieJar();
      browser.set("notes_refresh", token);
      const response = await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, browser);
      return { status: response.status, browser };
    };
    const second = await refreshWith(first);
    expect(second.status).toBe(303);
    const third = await refreshWith(second.browser.get("notes_refresh") ?? "");
    expect(third.status).toBe(303);
    expect(await listNotes(sessionCookie(third.browser), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
    // The first refresh token again: two parties hold this grant's tokens, so none of them keeps it.
    expect((await refreshWith(first)).status).toBe(302);
    expect(await listNotes(sessionCookie(third.browser), { "Sec-Fetch-Site": "same-origin" })).toBe(401);
  });

  it("two tabs whose session ended at once both refresh with the browser's one refresh token: both stay signed in, and so does the grant", async () => {
    const { jar } = await signedIn();
    const refreshToken = jar.get("notes_refresh") ?? "";
    // Each tab's navigation carries the browser's cookies as they were; the browser then keeps whichever answer came last.
    const tabs = [new CookieJar(), new CookieJar()];
    for (const tab of tabs) tab.set("notes_refresh", refreshToken);
    const answers = await Promise.all(tabs.map((tab) => navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, tab)));
    expect(answers.map((answer) => answer.status)).toEqual([303, 303]);
    expect(tabs[1]?.get("notes_refresh")).toBe(tabs[0]?.get("notes_refresh"));
    expect(tabs[1]?.get("notes_session")).toBe(tabs[0]?.get("notes_session"));
    for (const tab of tabs) expect(await listNotes(sessionCookie(tab), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
    // An hour later the browser refreshes with what it kept, whichever tab's answer that was: it works, and nothing was revoked.
    for (const tab of tabs) {
      const later = new CookieJar();
      later.set("notes_refresh", tab.get("notes_refresh") ?? "");
      expect((await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, later)).status).toBe(303);
      expect(await listNotes(sessionCookie(later), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
    }
  });

  it("a refresh token that no longer works starts the full sign-in and drops the cookie", async () => {
    const browser = new CookieJar();
    browser.set("notes_refresh", "alice:nogrant:nosecret");
    const response = await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, browser);
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("Location") ?? "").pathname).toBe("/authorize");
    // Cleared where it was set: a cookie of Path=/notes is cleared only by one of that path.
    expect(setCookies(response).find((line) => line.startsWith("notes_refresh="))).toMatch(/^notes_refresh=; Max-Age=0; Path=\/notes;/);
    expect(browser.get("notes_refresh")).toBeUndefined();
  });
});

describe("signing out", () => {
  it("clears both cookies and revokes the grant, so the token and refresh token stop working", async () => {
    const { jar } = await signedIn();
    const token = jar.get("notes_session") ?? "";
    const refreshToken = jar.get("notes_refresh") ?? "";
    const response = await send(
      new Request(`${ORIGIN}/notes/sign-out?return=/notes/demo`, { method: "POST", headers: { Cookie: jar.header(), Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" } }),
    );
    expect(response.status).toBe(200);
    const cleared = setCookies(response);
    expect(cleared.find((line) => line.startsWith("notes_session="))).toMatch(/Max-Age=0/);
    expect(cleared.find((line) => line.startsWith("notes_refresh="))).toMatch(/^notes_refresh=; Max-Age=0; Path=\/notes;/);
    expect(cleared.find((line) => line.startsWith("notes_session="))).toMatch(/^notes_session=; Max-Age=0; Path=\/;/);
    expect(await response.text()).toContain('href="/notes/sign-in?return=%2Fnotes%2Fdemo"');
    // Even a copy of the cookie kept elsewhere is dead.
    expect(await listNotes(`notes_session=${token}`, { "Sec-Fetch-Site": "same-origin" })).toBe(401);
    const again = new CookieJar();
    again.set("notes_refresh", refreshToken);
    expect((await navigate(send, `${ORIGIN}/notes/sign-in?return=/notes/demo`, again)).status).toBe(302);
  });

  it("closes another tab's open live socket (4401) at the Note's next check, at most 30 s after the sign-out", async () => {
    const { jar } = await signedIn();
    const { noteId } = await newNote();
    const upgrade = await send(new Request(`${ORIGIN}/api/v1/notes/${noteId}/live`, { headers: { Cookie: sessionCookie(jar), Origin: ORIGIN, Upgrade: "websocket" } }));
    expect(upgrade.status).toBe(101);
    const ws = upgrade.webSocket as WebSocket;
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })));
    ws.accept();
    const signedOut = await send(new Request(`${ORIGIN}/notes/sign-out`, { method: "POST", headers: { Cookie: jar.header(), Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" } }));
    expect(signedOut.status).toBe(200);
    const stub = env.NOTES.get(env.NOTES.idFromName(noteId));
    const due = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(due as number).toBeLessThanOrEqual(Date.now() + 30_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await closed).toEqual({ code: 4401, reason: "your access was revoked: sign in again" });
  });

  it("refuses a sign-out from another site and keeps the session", async () => {
    const { jar } = await signedIn();
    const response = await send(new Request(`${ORIGIN}/notes/sign-out`, { method: "POST", headers: { Cookie: jar.header(), Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" } }));
    expect(response.status).toBe(403);
    expect(setCookies(response)).toEqual([]);
    expect(await listNotes(sessionCookie(jar), { "Sec-Fetch-Site": "same-origin" })).toBe(200);
  });
});

describe("agents' names", () => {
  it("a grant keeps the client's registered name in the token's props", async () => {
    const tokens = await signIn({ origin: ORIGIN, user: "alice", scopes: ["osfoundry:read", "osfoundry:write"], fetch: send });
    const summary = await oauthApi().unwrapToken<{ user: string; client_name: string | null }>(tokens.access_token);
    expect(summary?.grant.props).toEqual({ user: "alice", client_name: "Local script" });
    expect(summary?.grant.clientId).toBe(tokens.client_id);
  });

  it("the page's own grant is named osFoundry Notes page", async () => {
    const { jar } = await signedIn("dave");
    const summary = await oauthApi().unwrapToken<{ user: string; client_name: string | null }>(decodeURIComponent(jar.get("notes_session") ?? ""));
    expect(summary?.grant.props).toEqual({ user: "dave", client_name: "osFoundry Notes page" });
  });
});

/** The OAuth helpers of this origin's authorization server. */
function oauthApi() {
  const unused = { fetch: () => new Response(null, { status: 500 }) };
  const setup = oauthFor(settingsOf(env), new URL(ORIGIN), { mcp: unused, api: unused });
  if (setup === null) throw new Error("no OAuth setup for the test origin");
  return setup.server.getOAuthApi(env);
}

/** A sign-in up to the authorization server's redirect to the callback, not yet followed. */
async function stopAtCallback(): Promise<{ jar: CookieJar; callback: URL }> {
  const jar = new CookieJar();
  const { callback } = await allowOnConsentPage(send, ORIGIN, jar, "alice", "/notes/demo");
  return { jar, callback };
}

function withParam(url: URL, key: string, value: string): string {
  const copy = new URL(url);
  copy.searchParams.set(key, value);
  return copy.href;
}

function withoutParam(url: URL, key: string): string {
  const copy = new URL(url);
  copy.searchParams.delete(key);
  return copy.href;
}
