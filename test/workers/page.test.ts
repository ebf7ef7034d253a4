/**
 * The person's page as the Worker serves it (src/page): a shell with no data
 * and a strict CSP, its script and its style sheet. What the page does in a
 * browser is test/browser's.
 */
import { describe, expect, it } from "vitest";
import { APP_JS } from "../../src/page/generated/app-js.js";
import { LIMITS } from "../../src/note/index.js";
import { APP_CSS } from "../../src/page/style.js";
import { fetchWorker, workerFetch } from "../support/workers.js";

describe("GET /notes/:id", () => {
  it("answers the same static shell for any Note ID, with no data in it: the script loads the Note", async () => {
    const [a, b] = await Promise.all([fetchWorker("/notes/demo"), fetchWorker("/notes/someone-elses_note")]);
    expect(a.status).toBe(200);
    expect(a.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(a.headers.get("Cache-Control")).toBe("no-store");
    const html = await a.text();
    expect(await b.text()).toBe(html);
    expect(html.startsWith("<!doctype html><html lang=\"en\">")).toBe(true);
    expect(html).not.toContain("demo");
    expect(html).toContain('<script src="/notes/app.js" type="module"></script>');
    expect(html).toContain('<link rel="stylesheet" href="/notes/app.css"/>');
  });

  it("forbids inline script and style, and connects only to its own origin and its socket's", async () => {
    const response = await fetchWorker("/notes/demo");
    const csp = response.headers.get("Content-Security-Policy") ?? "";
    const directives = new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
    expect(directives.get("default-src")).toBe("'self'");
    expect(directives.get("script-src")).toBe("'self'");
    expect(directives.get("style-src")).toBe("'self'");
    expect(directives.get("connect-src")).toBe("'self' ws://127.0.0.1:8787");
    expect(directives.get("frame-ancestors")).toBe("'none'");
    expect(csp).not.toContain("unsafe");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const html = await response.text();
    // Nothing the CSP would block: no script without a src, no style element or attribute, no handler attribute.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script src="/notes/app.js" type="module">']);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
  });

  it("names the secure socket origin behind https", async () => {
    const response = await workerFetch(new Request("https://localhost/notes/demo"));
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Security-Policy")).toContain("connect-src 'self' wss://localhost;");
  });

  it("leaves the page's sign-in routes to the sign-in, though a Note ID could spell them", async () => {
    const response = await fetchWorker("/notes/sign-in?return=/notes/demo", { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Content-Security-Policy")).toBeNull();
    expect(new URL(response.headers.get("Location") ?? "").pathname).toBe("/authorize");
  });

  it("is not a page for what no Note ID spells", async () => {
    for (const path of ["/notes/a.b", "/notes/" + "x".repeat(65), "/notes/demo/extra", "/notes//"]) {
      const response = await fetchWorker(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("Content-Security-Policy"), path).toBeNull();
    }
  });

  it("tells a person who followed a link to what no Note ID spells why there is no page, escaped", async () => {
    for (const [path, shown] of [
      ["/notes/caf%C3%A9", "“café” is not a Note ID"],
      ["/notes/a.b", "“a.b” is not a Note ID"],
      ["/notes/%3Cb%3Ex", "“&#60;b&#62;x” is not a Note ID"],
    ] as const) {
      const response = await fetchWorker(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("Content-Type"), path).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html, path).toContain(shown);
      expect(html, path).toContain("1 to 64 letters, digits, '-' or '_'");
      expect(html, path).not.toContain("<b>");
    }
  });
});

describe("the page's script and style sheet", () => {
  it("serves /notes/app.js as a JavaScript module and /notes/app.css as CSS, never sniffed", async () => {
    const script = await fetchWorker("/notes/app.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(script.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(await script.text()).toBe(APP_JS);
    const style = await fetchWorker("/notes/app.css");
    expect(style.headers.get("Content-Type")).toBe("text/css; charset=utf-8");
    expect(await style.text()).toBe(APP_CSS);
  });

  it("puts data into the page as text only: the script never assigns markup", () => {
    expect(APP_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
  });
});

describe("GET /notes/ (the home)", () => {
  it("answers one static shell for every person, under the Note page's CSP, with the same script: it lists the person's Notes", async () => {
    const response = await fetchWorker("/notes/");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const note = await fetchWorker("/notes/demo");
    expect(response.headers.get("Content-Security-Policy")).toBe(note.headers.get("Content-Security-Policy"));
    const html = await response.text();
    expect(html.startsWith("<!doctype html><html lang=\"en\">")).toBe(true);
    expect(html).toContain("<title>Your Notes · osFoundry Notes</title>");
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script src="/notes/app.js" type="module">']);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    // What the script fills: the list, its pages, the filter and the create form, each control labelled.
    for (const id of ['id="notes"', 'id="previous-page"', 'id="next-page"', 'id="filter-notes"', 'id="create-note"', 'id="status"', 'id="sign-out"']) expect(html).toContain(id);
    expect(html).toMatch(/<label>Titles containing <input type="search" name="title_contains" maxlength="200"/);
    expect(html).toMatch(/<label>Title <input name="title" maxlength="200"/);
  });

  it("sends /notes (no slash) to /notes/", async () => {
    const response = await fetchWorker("/notes", { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("Location")).toBe("/notes/");
  });

  it("signs in and comes back to the home", async () => {
    const response = await fetchWorker("/notes/sign-in?return=/notes/", { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("Location") ?? "").pathname).toBe("/authorize");
  });
});

describe("the Note page's header and fields", () => {
  it("links home, and limits each field to the server's limit (a tab's label to LIMITS.tabLabelLength, not 200)", async () => {
    const html = await (await fetchWorker("/notes/demo")).text();
    expect(html).toContain('<a href="/notes/" id="home-link">Your Notes</a>');
    expect(LIMITS.tabLabelLength).toBe(100);
    expect(html.match(/name="label" maxlength="(\d+)"/g)).toEqual([`name="label" maxlength="${LIMITS.tabLabelLength}"`, `name="label" maxlength="${LIMITS.tabLabelLength}"`]);
    expect(html).toContain(`id="note-title-input" name="title" maxlength="${LIMITS.noteTitleLength}"`);
    expect(html).toContain(`<label>User ID <input name="user" maxlength="${LIMITS.userIdLength}"`);
  });
});
