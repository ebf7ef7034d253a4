/**
 * A browser's side of the Notes page's sign-in (src/http/page-session.ts):
 * a cookie jar and the walk from /notes/sign-in through the local consent
 * page to /notes/callback. Web APIs only, so the Worker tests (workerd) and
 * the end-to-end tests (Node) share it.
 */

export type Send = (request: Request) => Promise<Response>;

/** Cookies by name, as a browser keeps them for one origin (paths and expiry aside: a cleared cookie is dropped). */
export class CookieJar {
  readonly #cookies = new Map<string, string>();

  /** Keeps what the response set; answers its Set-Cookie lines. */
  take(response: Response): string[] {
    const lines = setCookies(response);
    for (const line of lines) {
      const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const cleared = value === "" || attributes.some((a) => /^max-age=0$/i.test(a));
      if (cleared) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return lines;
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  set(name: string, value: string): void {
    this.#cookies.set(name, value);
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** A response's Set-Cookie lines, one each (workerd and Node both have `getSetCookie`; the types of one lack it). */
export function setCookies(response: Response): string[] {
  return (response.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
}

/** A GET as the browser sends it on a navigation from this origin, with the jar's cookies; the redirect not followed. */
export async function navigate(send: Send, url: string, jar: CookieJar): Promise<Response> {
  const response = await send(new Request(url, { redirect: "manual", headers: { Cookie: jar.header(), "Sec-Fetch-Site": "same-origin" } }));
  jar.take(response);
  return response;
}

export interface PageSignIn {
  /** Where /notes/sign-in sent the browser: the authorization endpoint with the flow's parameters. */
  authorize: URL;
  /** Where the authorization server sent the browser back: /notes/callback with code and state. */
  callback: URL;
  /** The callback's answer (its cookies already in the jar). */
  landed: Response;
}

/** Signs the person in from `/notes/sign-in?return=…` as `user` on the local consent page, allowing. */
export async function pageSignIn(send: Send, origin: string, jar: CookieJar, user: string, returnPath: string): Promise<PageSignIn> {
  const { authorize, callback } = await allowOnConsentPage(send, origin, jar, user, returnPath);
  const landed = await navigate(send, callback.href, jar);
  return { authorize, callback, landed };
}

/** The same up to the authorization server's redirect to /notes/callback, not yet followed. */
export async function allowOnConsentPage(send: Send, origin: string, jar: CookieJar, user: string, returnPath: string): Promise<Omit<PageSignIn, "landed">> {
  const started = await navigate(send, `${origin}/notes/sign-in?return=${encodeURIComponent(returnPath)}`, jar);
  const authorize = new URL(expectRedirect(started, 302, "sign-in"));
  const consent = await navigate(send, authorize.href, jar);
  const html = await consent.text();
  if (consent.status !== 200) throw new Error(`the consent page answered ${consent.status}: ${html.slice(0, 300)}`);
  const handle = /name=handle value="([^"]+)"/.exec(html)?.[1];
  if (handle === undefined) throw new Error("the consent page has no consent handle");
  const form = new URLSearchParams({ handle, decision: "approve", user, scope: "osfoundry:app" });
  const approved = await send(
    new Request(authorize, {
      method: "POST",
      body: form,
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: jar.header(), Origin: origin, "Sec-Fetch-Site": "same-origin" },
    }),
  );
  jar.take(approved);
  return { authorize, callback: new URL(expectRedirect(approved, 302, "consent")) };
}

function expectRedirect(response: Response, status: number, what: string): string {
  const location = response.headers.get("Location");
  if (response.status !== status || location === null) throw new Error(`${what} answered ${response.status}, not a ${status} redirect`);
  return location;
}
