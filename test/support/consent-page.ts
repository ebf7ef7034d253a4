/**
 * The person's browser on the local consent page, for the end-to-end tests:
 * it opens the authorization URL an MCP client handed over, reads the form,
 * and submits it, answering the redirect's Location instead of following it.
 */
import { expect } from "vitest";
import { REDIRECT_URL } from "./memory-oauth-provider.js";

/** What the consent page showed. */
export interface ConsentPage {
  url: URL;
  handle: string;
  cookies: string;
  /** The scope checkboxes, in page order, and whether each is ticked. */
  scopes: { value: string; checked: boolean }[];
  /** The local user field's value, or null when the page has none. */
  user: string | null;
  html: string;
}

/** The browser opens the authorization URL the SDK handed over. */
export async function openConsentPage(url: URL): Promise<ConsentPage> {
  const response = await fetch(url, { redirect: "manual" });
  const html = await response.text();
  expect(response.status, html.slice(0, 500)).toBe(200);
  expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
  const handle = /name=handle value="([^"]+)"/.exec(html)?.[1];
  if (handle === undefined) throw new Error(`the consent page has no handle:\n${html}`);
  const scopes = [...html.matchAll(/<input type=checkbox name=scope value="([^"]+)"( checked)?>/g)].map((m) => ({
    value: unescapeHtml(m[1] ?? ""),
    checked: m[2] !== undefined,
  }));
  const user = /<input name=user value="([^"]*)"/.exec(html)?.[1];
  return { url, handle: unescapeHtml(handle), cookies: cookieHeader(response.headers), scopes, user: user === undefined ? null : unescapeHtml(user), html };
}

/** The browser submits the consent form; answers the 302's Location. */
export async function submitConsent(
  page: ConsentPage,
  decision: "approve" | "deny",
  fields: { user?: string; scopes?: readonly string[] } = {},
): Promise<{ status: number; location: URL | null; body: string }> {
  const form = new URLSearchParams({ handle: page.handle, decision });
  if (fields.user !== undefined) form.set("user", fields.user);
  for (const scope of fields.scopes ?? []) form.append("scope", scope);
  const response = await fetch(page.url, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: page.cookies },
    body: form,
  });
  const location = response.headers.get("Location");
  return { status: response.status, location: location === null ? null : new URL(location), body: await response.text() };
}

/**
 * Approves on the consent page as `user` with `scopes` ticked; answers the
 * client's callback URL (its code, state and iss), checking it came back to
 * the client with the state the client sent.
 */
export async function approve(authorizationUrl: URL, user: string, scopes: readonly string[]): Promise<URL> {
  const page = await openConsentPage(authorizationUrl);
  const answer = await submitConsent(page, "approve", { user, scopes });
  expect(answer.status, answer.body).toBe(302);
  const location = answer.location;
  if (location === null) throw new Error("approving gave no Location");
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URL);
  expect(location.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
  if (location.searchParams.get("code") === null) throw new Error(`approving gave no code: ${location.href}`);
  return location;
}

/** The authorization code a callback URL carries. */
export function codeOf(callback: URL): string {
  const code = callback.searchParams.get("code");
  if (code === null) throw new Error(`no code in ${callback.href}`);
  return code;
}

/** The cookies a response set, as a Cookie header (name=value pairs only), as a browser sends them back. */
function cookieHeader(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((line) => line.split(";", 1)[0]?.trim() ?? "")
    .filter((pair) => pair !== "")
    .join("; ");
}

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}
