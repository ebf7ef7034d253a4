/**
 * Issue 24, acceptance 3: hostile text everywhere a Note holds text — slide
 * titles, bodies and notes, a tab's label, the Markdown, a source's title and
 * URL (cited by an agent and by the person), an agent's client name and the
 * Note's title — each with `<img src=x onerror=…>`, `<script>`, `javascript:`
 * links (as HTML and as Markdown) and a right-to-left override. On the
 * Slides, Markdown and Sources tabs and in the feed, all of it shows as text:
 * no dialog, no request off the server's origin (nor to the `x` an `<img>`
 * would load), no console error, no element made from the data.
 */
import type { Request as BrowserRequest } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { connectClient } from "../../scripts/demo-session.js";
import { orThrow, type PersonApi } from "../../scripts/lib/person-api.js";
import { signIn } from "../../scripts/lib/sign-in.js";
import { call, feedOf, openPage, tabTo, USER, useBrowserHarness, WAIT } from "./harness.js";

const harness = useBrowserHarness();
let people: PersonApi;
beforeAll(() => {
  ({ people } = harness());
});

/** One line of every attack: an element that runs script, one that loads from elsewhere, script, javascript: links (HTML and Markdown), and a direction override. */
const EVIL = `<img src=x onerror=alert(1)><img src=https://attacker.invalid/p.png><script>alert(2)</script><a href="javascript:alert(3)">js</a> [x](javascript:alert(4)) \u202Eevil\u202C`;
/** The same, over lines, as a body or Markdown would have it. */
const EVIL_TEXT = `# ${EVIL}\n\n${EVIL}\n\n- [y](javascript:alert(5))\n- <script>alert(6)</script>\n\n> <img src=x onerror=alert(7)>\n\n\`\`\`\n<script>alert(8)</script>\n\`\`\``;
/** A client name, as the agent registered it. */
const EVIL_CLIENT = "<img src=x onerror=alert(1)> \u202Eevil";

describe("hostile text on the person's page", () => {
  it("shows every piece of it as text on the Slides, Markdown and Sources tabs and in the feed", async () => {
    const { server } = harness();
    const noteId = `xss-${crypto.randomUUID()}`;
    await people.createApprovedNote(noteId, EVIL.slice(0, 200));

    // The person's slides, through the person's API.
    const deck = orThrow(await people.addTab(noteId, { tab_type: "slides", label: EVIL.slice(0, 100) }), "add a deck").tab;
    const slides = await people.request("POST", `/notes/${noteId}/tabs/${deck.id}/slides`, { slides: [{ title: EVIL, body: EVIL_TEXT, notes: EVIL_TEXT }] });
    expect(slides.status, JSON.stringify(slides.body)).toBe(201);
    const markdown = await people.request("PUT", `/notes/${noteId}/markdown`, { text: EVIL_TEXT });
    expect(markdown.status).toBe(200);

    // An agent whose client registered a hostile name cites a page and builds a deck.
    const agentToken = (await signIn({ origin: server.url, user: USER, scopes: ["osfoundry:read", "osfoundry:write"], resource: "mcp", clientName: EVIL_CLIENT })).access_token;
    const client = await connectClient(server.mcpUrl, agentToken);
    let version = (await people.request("GET", `/notes/${noteId}`)).body as { version: number };
    try {
      const cited = await call(client, "add_note_source", { note_id: noteId, expected_version: version.version, idempotency_key: "evil-1", title: EVIL, url: "https://example.org/<img/src=x/onerror=alert(1)>", description: EVIL_TEXT });
      const built = await call(client, "create_note_tab", { note_id: noteId, expected_version: cited.version, idempotency_key: "evil-2", tab_type: "slides", label: "Agent deck", slides: [{ title: EVIL, body: EVIL_TEXT }] });
      version = { version: built.version };
    } finally {
      await client.close();
    }
    // The person cites too: a hostile title and a query that holds markup; a javascript: URL is refused.
    const personCited = await people.request("POST", `/notes/${noteId}/sources`, { title: EVIL, url: "https://xn--mnchen-3ya.de/?q=<script>alert(1)</script>", description: EVIL, expected_version: version.version });
    expect(personCited.status, JSON.stringify(personCited.body)).toBe(201);
    const refused = await people.request("POST", `/notes/${noteId}/sources`, { title: EVIL, url: "javascript:alert(1)", expected_version: (personCited.body as { version: number }).version });
    expect(refused.status).toBe(400);

    const dialogs: string[] = [];
    const offOrigin: string[] = [];
    const page = await openPage(harness(), noteId, {
      beforeOpen: async (context) => {
        context.on("page", (opened) => {
          opened.on("dialog", (dialog) => {
            dialogs.push(dialog.message());
            void dialog.dismiss();
          });
          opened.on("request", (request: BrowserRequest) => {
            const url = new URL(request.url());
            if (url.origin !== server.url || /\/x$|attacker/.test(url.pathname)) offOrigin.push(request.url());
          });
        });
      },
    });
    try {
      /** Nothing on the page was made from the data: the shell's one script, no image, frame or javascript: link. */
      const madeFromData = () =>
        page.evaluate(() => ({
          scripts: Array.from(document.scripts).map((s) => s.getAttribute("src")),
          images: document.images.length,
          frames: document.querySelectorAll("iframe, object, embed").length,
          javascriptLinks: Array.from(document.querySelectorAll("a[href]")).filter((a) => /^\s*javascript:/i.test(a.getAttribute("href") ?? "")).length,
          hrefs: Array.from(document.querySelectorAll("a[href]")).map((a) => a.getAttribute("href") ?? ""),
        }));
      const nothingMade = async (where: string) => {
        const made = await madeFromData();
        expect({ where, scripts: made.scripts, images: made.images, frames: made.frames, javascriptLinks: made.javascriptLinks }).toEqual({ where, scripts: ["/notes/app.js"], images: 0, frames: 0, javascriptLinks: 0 });
        expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
        // The page's own links (the feed's to a tab, /notes/<id>?tab=; "Your Notes", /notes/) and the data's http(s) and mailto ones, nothing else.
        for (const href of made.hrefs) expect(href, where).toMatch(/^(#|\/notes\/([^/]|$)|https?:\/\/|mailto:)/);
      };

      // The Note's title, as text.
      expect(await page.locator("#note-title").textContent()).toBe(EVIL.slice(0, 200));

      // The person's deck: title, body and notes as text.
      await tabTo(page, `#tab-strip button[data-tab-id="${deck.id}"]`);
      await page.keyboard.press("Enter");
      const slide = page.locator(".slides li").first();
      await slide.waitFor(WAIT);
      expect(await slide.locator("h3").textContent()).toBe(EVIL);
      expect(await slide.textContent()).toContain("<script>alert(6)</script>");
      expect(await page.locator(`#tab-strip button[data-tab-id="${deck.id}"] .label`).textContent()).toBe(EVIL.slice(0, 100));
      await nothingMade("slides");

      // The Markdown: raw HTML as text, the javascript: links as the text they were written as.
      await tabTo(page, '#tab-strip button[data-tab-id="markdown"]');
      await page.keyboard.press("Enter");
      const view = page.locator("#markdown-view");
      await expect.poll(() => view.locator("h3").count(), WAIT).toBe(1);
      expect(await view.locator("h3").textContent()).toBe(EVIL);
      const shown = (await view.textContent()) ?? "";
      for (const part of ["<img src=x onerror=alert(1)>", "<script>alert(2)</script>", '<a href="javascript:alert(3)">js</a>', "[x](javascript:alert(4))", "[y](javascript:alert(5))", "<script>alert(8)</script>", "\u202Eevil\u202C"]) expect(shown).toContain(part);
      expect(await view.locator("a").count()).toBe(0);
      expect(await page.locator("#markdown-text").inputValue()).toBe(EVIL_TEXT);
      await nothingMade("markdown");

      // The Sources: titles and descriptions as text, links only to the http(s) URLs as stored.
      await tabTo(page, '#tab-strip button[data-tab-id="sources"]');
      await page.keyboard.press("Enter");
      const sources = page.locator("#tab-content li");
      await expect.poll(() => sources.count(), WAIT).toBe(2);
      expect(await sources.locator("a").allTextContents()).toEqual([EVIL, EVIL]);
      expect(await sources.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual([
        "https://example.org/%3Cimg/src=x/onerror=alert(1)%3E",
        "https://xn--mnchen-3ya.de/?q=%3Cscript%3Ealert(1)%3C/script%3E",
      ]);
      expect(await sources.locator(".url").allTextContents()).toEqual(["example.org/%3Cimg/src=x/onerror=alert(1)%3E", "münchen.de?q=%3Cscript%3Ealert(1)%3C/script%3E"]);
      expect(await sources.first().locator(".description").textContent()).toBe(EVIL_TEXT);
      await nothingMade("sources");

      // The feed: the agent by its hostile client name, as text.
      await expect.poll(async () => (await feedOf(page)).filter((line) => line.actor === "agent").length, WAIT).toBe(2);
      const agentLines = (await feedOf(page)).filter((line) => line.actor === "agent");
      for (const line of agentLines) expect(line.text).toContain(EVIL_CLIENT);
      await nothingMade("feed");

      expect(dialogs).toEqual([]);
      expect(offOrigin).toEqual([]);
      expect(page.problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
