/**
 * End to end, the Notes page's sign-in on the real Worker under `wrangler
 * dev`: /notes/sign-in, the local consent page, /notes/callback, and then the
 * person's API answering the session cookie alone, as the page's script
 * sends it (same-origin, no Authorization header). This file plays the browser.
 */
import { describe, expect, it } from "vitest";
import { DEMO_NOTE_ID, DEMO_USER } from "../../scripts/local-server.js";
import { useSharedServer } from "../support/e2e-server.js";
import { CookieJar, pageSignIn, setCookies } from "../support/page-browser.js";

// The shared server, its demo Note seeded (test/support/e2e-global.ts).
const { running } = useSharedServer();

const send = (request: Request) => fetch(request);

/** A same-origin fetch from the page's script: the cookies, no Authorization header. */
function fromPage(path: string, jar: CookieJar, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Cookie", jar.header());
  headers.set("Sec-Fetch-Site", "same-origin");
  return fetch(`${running().url}${path}`, { ...init, headers });
}

describe("the Notes page's sign-in on wrangler dev", () => {
  it("signs in through the local consent page and reads the demo Note with the session cookie alone", async () => {
    const origin = running().url;
    const jar = new CookieJar();
    const { authorize, callback, landed } = await pageSignIn(send, origin, jar, DEMO_USER, `/notes/${DEMO_NOTE_ID}`);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${origin}/authorize`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(`${callback.origin}${callback.pathname}`).toBe(`${origin}/notes/callback`);
    expect(landed.status).toBe(303);
    expect(landed.headers.get("Location")).toBe(`/notes/${DEMO_NOTE_ID}`);
    expect(setCookies(landed).find((line) => line.startsWith("notes_session="))).toMatch(/HttpOnly.*SameSite=Strict|SameSite=Strict.*HttpOnly/);

    const note = await fromPage(`/api/v1/notes/${DEMO_NOTE_ID}`, jar);
    expect(note.status).toBe(200);
    const body = (await note.json()) as { note_id: string; tabs: { label: string }[] };
    expect(body.note_id).toBe(DEMO_NOTE_ID);
    expect(body.tabs.map((tab) => tab.label)).toContain("Q3 deck");

    // The same cookie from another site's page is not a credential.
    const foreign = await fetch(`${origin}/api/v1/notes/${DEMO_NOTE_ID}`, { headers: { Cookie: jar.header(), "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" } });
    expect(foreign.status).toBe(401);
    await foreign.body?.cancel();

    const out = await fromPage("/notes/sign-out", jar, { method: "POST", headers: { Origin: origin } });
    expect(out.status).toBe(200);
    const kept = jar.header();
    jar.take(out);
    expect(jar.get("notes_session")).toBeUndefined();
    // The token the cookie held is revoked, not only forgotten by this browser.
    const after = await fetch(`${origin}/api/v1/notes/${DEMO_NOTE_ID}`, { headers: { Cookie: kept, "Sec-Fetch-Site": "same-origin" } });
    expect(after.status).toBe(401);
    await after.body?.cancel();
  });
});
