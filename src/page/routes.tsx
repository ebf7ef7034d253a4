/**
 * @module
 * The person's page, mounted at /notes: the shell for a Note (`GET /notes/:id`),
 * the home listing the person's Notes (`GET /notes/`, `homePage`), their
 * script and their style sheet. None of these needs a session: the shells
 * hold no data, and the script signs in when the API answers 401.
 *
 * @example
 * app.get("/notes/", homePage);
 * app.route("/notes", page);
 */
import { Hono, type Context } from "hono";
import { escape, pageHtml } from "../http/html.js";
import { clip } from "../note/index.js";
import { APP_JS } from "./generated/app-js.js";
import { HOME_PATH, HomeShell, Shell } from "./shell.js";
import { APP_CSS } from "./style.js";

export const page = new Hono();

/**
 * Only this origin's script, style and connections: `connect-src` names the
 * socket's ws(s) origin too, since browsers differ on whether 'self' covers it.
 */
function contentSecurityPolicy(origin: URL): string {
  const socketOrigin = `${origin.protocol === "https:" ? "wss:" : "ws:"}//${origin.host}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${socketOrigin}`,
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The tab's icon (without one, every browser asks for /favicon.ico and logs its 404). */
const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1a56db"/><path d="M4 4h8v1.5H4zm0 3h8v1.5H4zm0 3h5v1.5H4z" fill="#fff"/></svg>';

const common = { "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" };

page.get("/app.js", () => new Response(APP_JS, { headers: { ...common, "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" } }));
page.get("/icon.svg", () => new Response(ICON_SVG, { headers: { ...common, "Content-Type": "image/svg+xml", "Cache-Control": "max-age=86400" } }));
page.get("/app.css", () => new Response(APP_CSS, { headers: { ...common, "Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache" } }));

/** A shell as the browser gets it: no data in it, never cached, under the strict CSP. */
function shell(c: Context, html: string): Response {
  return c.body(`<!doctype html>${html}`, 200, {
    ...common,
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": contentSecurityPolicy(new URL(c.req.url)),
    "Cache-Control": "no-store",
  });
}

/**
 * The home, `GET /notes/`: the same for every person (the script lists theirs). Mounted on the app by its
 * exact path, since a sub-app's "/" is /notes without the slash.
 */
export const homePage = (c: Context): Response => shell(c, String(<HomeShell />));

// /notes without the slash: the home is /notes/ (relative links resolve under it).
page.get("/", (c) => c.redirect(HOME_PATH, 301));

// A Note ID's spelling (NOTE_ID_PATTERN in src/edge/fields.ts, at most 64): anything else under /notes is not a page.
page.get("/:id{[A-Za-z0-9_-]{1,64}}", (c) => shell(c, String(<Shell />)));

// One path segment that no Note ID spells (a link mistyped, cut or with an accent in it): a 404
// that says why, rather than an empty page. Deeper paths stay the app's plain 404.
page.get("/:other", (c) =>
  c.html(
    pageHtml(
      "No such Note",
      `<p>“${escape(clip(c.req.param("other"), 100))}” is not a Note ID: a Note ID is 1 to 64 letters, digits, '-' or '_', starting with a letter or digit. Check the link you followed.</p>`,
    ),
    404,
    { ...common, "Cache-Control": "no-store" },
  ),
);
