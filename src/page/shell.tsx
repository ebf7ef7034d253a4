/**
 * @module
 * The person's page for one Note: a static HTML shell with no data in it.
 * The script (/notes/app.js) reads the Note through the person's API with the
 * session cookie and keeps it current over the live socket, so the shell is
 * the same for every Note and every person, and nothing in it needs escaping.
 */
import type { FC, PropsWithChildren } from "hono/jsx";
import { LIMITS } from "../note/limits.js";

/** Where the page's script and style sheet are served (src/page/routes.ts). */
const SCRIPT_PATH = "/notes/app.js";
const STYLE_PATH = "/notes/app.css";
/** The person's list of Notes (the home, served by src/page/routes.tsx). */
export const HOME_PATH = "/notes/";

/** What every page's head holds: the one script (it tells the home from a Note by the path) and the style sheet. */
const Head: FC<{ title: string }> = ({ title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>{title}</title>
    <link rel="icon" href="/notes/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href={STYLE_PATH} />
    <script src={SCRIPT_PATH} type="module"></script>
  </head>
);

/** Sign-out is a POST, so another site cannot end the session; the script sets the action's return path. */
const SignOut: FC = () => (
  <form id="sign-out" method="post" action="/notes/sign-out">
    <button type="submit">Sign out</button>
  </form>
);

const Section: FC<PropsWithChildren<{ id: string; title: string }>> = ({ id, title, children }) => (
  <section id={id} aria-labelledby={`${id}-title`}>
    <h2 id={`${id}-title`}>{title}</h2>
    {children}
  </section>
);

/** The page's skeleton: the script fills each region by its id and never replaces the forms the person is typing in. */
export const Shell: FC = () => (
  <html lang="en">
    <Head title="Note · osFoundry Notes" />
    <body>
      <a class="skip" href="#tab-panel">Skip to the selected tab</a>
      <header>
        <nav aria-label="Notes">
          <a href={HOME_PATH} id="home-link">Your Notes</a>
        </nav>
        <h1 id="note-title">Loading the Note…</h1>
        <p class="meta">
          <span>Note ID <code id="note-id"></code></span> <span>version <strong id="note-version">–</strong></span>{" "}
          <span id="live-state">offline</span>
        </p>
        <SignOut />
        <button type="button" id="rename-note" aria-expanded="false" aria-controls="note-title-form" hidden>
          Rename the Note
        </button>
        <form id="note-title-form" class="row" hidden>
          <label>
            Note title <input id="note-title-input" name="title" maxlength={LIMITS.noteTitleLength} autocomplete="off" required />
          </label>
          <button type="submit">Save title</button>
          <button type="button" id="note-title-cancel">Cancel</button>
        </form>
        <p id="status" role="status" aria-live="polite"></p>
        {/* Shown when the Note cannot be opened (any more): the way back to the person's other Notes. */}
        <p id="gone-home" hidden>
          <a href={HOME_PATH}>Your Notes</a>
        </p>
      </header>
      <main>
        <Section id="search" title="Search this Note">
          <form id="search-note" class="row" role="search" aria-describedby="search-summary">
            <label>
              Words to find <input type="search" name="q" maxlength={LIMITS.searchQueryLength} autocomplete="off" required />
            </label>
            <button type="submit">Search</button>
          </form>
          <p id="search-summary" class="meta" role="status" aria-live="polite"></p>
          <ol id="search-results" class="search-results"></ol>
          <button type="button" id="search-more" hidden>
            More hits
          </button>
        </Section>
        <Section id="tabs" title="Tabs">
          <ol id="tab-strip" class="tab-strip"></ol>
          <form id="add-tab" class="row">
            <label>
              Type{" "}
              <select name="tab_type">
                <option value="slides">Slides</option>
                <option value="sheet">Sheet</option>
              </select>
            </label>
            <label>
              Label <input name="label" maxlength={LIMITS.tabLabelLength} autocomplete="off" />
            </label>
            <button type="submit">Add tab</button>
          </form>
        </Section>
        <Section id="tab-panel" title="Selected tab">
          <p class="meta">
            <span id="tab-type"></span> <code id="tab-id"></code>
          </p>
          <form id="rename-tab" class="row" hidden>
            <label>
              Label <input name="label" maxlength={LIMITS.tabLabelLength} autocomplete="off" required />
            </label>
            <button type="submit">Rename</button>
          </form>
          <div class="row">
            <button type="button" id="move-earlier">Move earlier</button>
            <button type="button" id="move-later">Move later</button>
            <button type="button" id="delete-tab" hidden>Delete tab</button>
            <button type="button" id="confirm-delete" class="danger" hidden>Yes, delete this tab</button>
          </div>
          {/* Shown on the Sources and Files tabs only (the style sheet reads #tab-panel's data-tab-id). */}
          <form id="cite-source" class="attachment-form" aria-labelledby="cite-source-title">
            <h3 id="cite-source-title">Cite a page</h3>
            <div class="row">
              <label>
                URL <input name="url" inputmode="url" autocomplete="off" spellcheck={false} required maxlength={LIMITS.urlLength} placeholder="e.g. https://example.org/report" />
              </label>
              <label>
                Title <input name="title" autocomplete="off" required maxlength={LIMITS.sourceTitleLength} />
              </label>
            </div>
            <label class="wide">
              Description (optional) <textarea name="description" rows={2} maxlength={LIMITS.sourceDescriptionLength}></textarea>
            </label>
            <button type="submit">Cite the page</button>
          </form>
          <form id="add-file" class="attachment-form" aria-labelledby="add-file-title" aria-describedby="add-file-hint">
            <h3 id="add-file-title">Add a file</h3>
            <p class="hint" id="add-file-hint">
              The page records a file's details only (name, type and size), as the API does; the file itself stays in the desktop app.
            </p>
            <div class="row">
              <label>
                Name <input name="name" autocomplete="off" required maxlength={LIMITS.fileNameLength} placeholder="e.g. deck.pdf" />
              </label>
              <label>
                Media type <input name="media_type" autocomplete="off" spellcheck={false} required maxlength={LIMITS.mediaTypeLength} placeholder="e.g. application/pdf" />
              </label>
              <label>
                Size in bytes <input name="size_bytes" type="number" inputmode="numeric" min={0} max={LIMITS.fileSizeBytes} step={1} required />
              </label>
            </div>
            <button type="submit">Add the file</button>
          </form>
          <div id="tab-content"></div>
          <form id="markdown-form" hidden>
            <label for="markdown-text">Markdown</label>
            <textarea id="markdown-text" name="text" rows={14} spellcheck={false}></textarea>
            <div class="row">
              <button type="submit">Save Markdown</button>
              <button type="button" id="markdown-reload">Discard my edits</button>
            </div>
            <h3 id="markdown-view-title">As it reads</h3>
            <p class="hint">The saved Markdown as a reader sees it: headings, paragraphs, emphasis, code, lists, quotes and http(s) or mailto links; anything else shows as its text.</p>
            <div id="markdown-view" class="markdown-view" role="region" aria-labelledby="markdown-view-title"></div>
          </form>
          <button type="button" id="load-more" hidden>Load more</button>
        </Section>
        <Section id="access" title="Who may use this Note">
          <ul id="members" class="members"></ul>
          <form id="add-member" class="row">
            <label>
              User ID <input name="user" maxlength={LIMITS.userIdLength} autocomplete="off" required />
            </label>
            <button type="submit">Add member</button>
          </form>
          <p>
            Connectors (AI agents): <strong id="approval-state">–</strong>{" "}
            <button type="button" id="approval-toggle">Approve for connectors</button>
          </p>
        </Section>
        <Section id="activity" title="Activity">
          <p class="hint">Every change to this Note, newest first, each with the names it had then: agents are marked by the name of their client.</p>
          {/* New changes, in words, for a screen reader (the list itself is not a live region: a redraw would read it all). */}
          <p id="feed-news" class="visually-hidden" role="status" aria-live="polite"></p>
          {/* It scrolls: focusable, so the keyboard can scroll it too. */}
          <ol id="feed" class="feed" tabindex={0} aria-labelledby="activity-title"></ol>
        </Section>
      </main>
    </body>
  </html>
);

/** The home, /notes/: the person's Notes, a page at a time, a title filter, and a form to create a Note. */
export const HomeShell: FC = () => (
  <html lang="en">
    <Head title="Your Notes · osFoundry Notes" />
    <body>
      <a class="skip" href="#notes-list">Skip to your Notes</a>
      <header>
        <h1>Your Notes</h1>
        <SignOut />
        <p id="status" role="status" aria-live="polite"></p>
      </header>
      <main class="home">
        <Section id="create" title="Create a Note">
          <form id="create-note" class="row">
            <label>
              Title <input name="title" maxlength={LIMITS.noteTitleLength} autocomplete="off" required />
            </label>
            <button type="submit">Create a Note</button>
          </form>
        </Section>
        <Section id="notes-list" title="Notes you can use">
          <form id="filter-notes" class="row" role="search">
            <label>
              Titles containing <input type="search" name="title_contains" maxlength={LIMITS.noteTitleLength} autocomplete="off" />
            </label>
          </form>
          <p id="notes-range" class="meta" aria-live="polite"></p>
          <ul id="notes" class="notes"></ul>
          <nav class="row" aria-label="Pages of Notes">
            <button type="button" id="previous-page" disabled>
              Previous page
            </button>
            <button type="button" id="next-page" disabled>
              Next page
            </button>
          </nav>
        </Section>
      </main>
    </body>
  </html>
);
