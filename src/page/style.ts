/**
 * @module
 * The page's style sheet, served as /notes/app.css (the CSP allows no inline
 * style). Readable from a 360-px-wide screen up; focus is always visible.
 */
export const APP_CSS = `
:root { color-scheme: light dark; --fg: #1b1b1f; --muted: #5b5b66; --line: #c9c9d1; --accent: #1a56db; --agent: #7a2e9e; --person: #0f6b3a; --bg: #fff; --panel: #f4f4f7; --fresh: #fff6c8; --fresh-strong: #ffe680; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececf1; --muted: #a8a8b3; --line: #44444d; --accent: #8ab4ff; --agent: #d9a6f2; --person: #8fe0b0; --bg: #16161a; --panel: #202026; --fresh: #3a3413; --fresh-strong: #5c5110; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 72rem; margin: 0 auto; padding: 0.75rem 1rem; }
main { display: grid; gap: 1rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 60rem) { main { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); } #search, #tabs, #tab-panel { grid-column: 1; } #access { grid-column: 2; grid-row: 1; } #activity { grid-column: 2; grid-row: 2 / span 2; } }
header { position: relative; }
#sign-out { position: absolute; top: 0.75rem; right: 1rem; }
@media (max-width: 30rem) { #sign-out { position: static; margin-bottom: 0.5rem; } }
h1 { font-size: 1.5rem; margin: 0 0 0.25rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 0 0 0.5rem; overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 0; overflow-wrap: anywhere; }
section { align-self: start; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem; min-width: 0; }
code { font: 0.85em ui-monospace, monospace; overflow-wrap: anywhere; }
.meta, .hint { color: var(--muted); font-size: 0.9rem; margin: 0.25rem 0; }
.meta span { margin-right: 0.75rem; }
#status:not(:empty) { border-left: 4px solid var(--accent); padding: 0.25rem 0.5rem; background: var(--panel); }
#live-state[data-state="live"] { color: var(--person); }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: end; margin: 0.5rem 0; }
label { display: inline-flex; flex-direction: column; gap: 0.15rem; font-size: 0.9rem; }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem 0.6rem; max-width: 100%; }
textarea { width: 100%; font-family: ui-monospace, monospace; display: block; }
button { cursor: pointer; min-height: 2.5rem; }
button[disabled] { opacity: 0.5; cursor: default; }
button.danger { border-color: #b3261e; color: #b3261e; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 0.5rem; background: var(--bg); padding: 0.5rem; }
.tab-strip { list-style: none; display: flex; flex-wrap: wrap; gap: 0.4rem; padding: 0; margin: 0; }
.tab-strip li { max-width: 100%; }
.tab-strip .label { overflow-wrap: anywhere; }
.tab-strip button { display: flex; flex-direction: column; align-items: flex-start; text-align: left; }
.tab-strip button[aria-pressed="true"] { border: 2px solid var(--accent); font-weight: 600; }
.tab-strip code { color: var(--muted); font-weight: normal; }
.slides { padding-left: 1.5rem; }
.slides > li { margin: 0.5rem 0; padding: 0.5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }
.slides > li.editing { border-color: var(--accent); }
.slides .body p, .slides .body li, .slides .notes { white-space: pre-wrap; margin: 0.25rem 0; overflow-wrap: anywhere; }
.slides .body ul, .slides .body ol { margin: 0.25rem 0; padding-left: 1.25rem; }
.slides .notes { color: var(--muted); font-size: 0.9rem; }
.slides .actions { margin-bottom: 0; }
.slide-form { display: grid; gap: 0.5rem; min-width: 0; }
.slide-form label { display: flex; }
.slide-form input { width: 100%; }
.slide-form .row { margin: 0; }
.add-slide { margin-top: 1rem; border-top: 1px solid var(--line); padding-top: 0.75rem; }
.slide-form .error { margin: 0; color: #b3261e; overflow-wrap: anywhere; }
.slide-form .conflict { border-left: 4px solid #b3261e; padding: 0.25rem 0.5rem; background: var(--panel); overflow-wrap: anywhere; }
.slide-form .conflict p { margin: 0 0 0.25rem; }
.slide-form .conflict dd { white-space: pre-wrap; margin: 0 0 0.25rem 0.75rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border: 1px solid var(--line); padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
td { white-space: pre-wrap; overflow-wrap: break-word; max-width: 20rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.sheet-table th.actions, .sheet-table td.actions { white-space: nowrap; }
.sheet-table td.actions button { min-height: 2rem; padding: 0.15rem 0.5rem; margin: 0 0.15rem 0.15rem 0; }
.sheet-table tr.editing td { background: var(--bg); }
.sheet-table tr.editing input:not([type="checkbox"]), .sheet-table tr.editing textarea { width: 9rem; }
.sheet-table tr.editing-note td { white-space: normal; }
.cell-field { display: flex; flex-direction: column; gap: 0.15rem; }
.cell-field .field-name { font-size: 0.9rem; }
label.check { flex-direction: row; align-items: center; gap: 0.3rem; font-size: 0.8rem; color: var(--muted); }
.sheet-add-row, .sheet-add-columns { margin: 0.5rem 0 0.75rem; }
.sheet-add-row h3 { margin-bottom: 0.25rem; }
.sheet-add-row .add-field { min-width: 0; max-width: 100%; }
.form-message:empty { display: none; }
.form-message { color: #b3261e; margin: 0.25rem 0; }
@media (prefers-color-scheme: dark) { .form-message { color: #ffb4ab; } }
.attachments { padding-left: 1.25rem; overflow-wrap: anywhere; }
.feed { padding-left: 0; list-style: none; max-height: 32rem; overflow-y: auto; margin: 0; }
.feed li { padding: 0.35rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; font-size: 0.9rem; }
.feed .version { font-variant-numeric: tabular-nums; color: var(--muted); }
.feed .actor { font-weight: 600; }
.feed .actor.agent { color: var(--agent); }
.feed .actor.person { color: var(--person); }
.feed .badge { font-size: 0.75rem; border: 1px solid currentColor; border-radius: 999px; padding: 0 0.4rem; color: var(--muted); }
.feed a { color: var(--accent); }
.feed li.fresh { background: var(--fresh); animation: feed-fresh 4s ease-out; }
@keyframes feed-fresh { from { background: var(--fresh-strong); } to { background: var(--fresh); } }
@media (prefers-reduced-motion: reduce) { .feed li.fresh { animation: none; } }
.feed .undo-box { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.5rem; margin-top: 0.25rem; }
.feed .undo-box button.undo { min-height: 2rem; padding: 0.1rem 0.6rem; }
.feed .undo-hint { color: var(--muted); font-size: 0.8rem; }
.feed .undo-said { flex-basis: 100%; margin: 0; color: #b3261e; }
@media (prefers-color-scheme: dark) { .feed .undo-said { color: #ffb4ab; } }
.feed details.what-changed { min-width: 0; }
.feed details.what-changed[open] { flex-basis: 100%; }
.feed details.what-changed summary { cursor: pointer; color: var(--accent); min-height: 2rem; display: flex; align-items: center; }
.feed .changed { background: var(--panel); border-radius: 6px; padding: 0.35rem 0.5rem; }
.feed .changed-head { margin: 0.25rem 0; }
.feed .changed dl { margin: 0; }
.feed .changed dt { color: var(--muted); font-size: 0.8rem; }
.feed .changed dd { margin: 0 0 0.35rem 0.5rem; min-width: 0; }
.feed .changed pre { margin: 0; font: inherit; white-space: pre-wrap; overflow-wrap: anywhere; }
.feed .changed .clipped { display: block; color: var(--muted); font-size: 0.8rem; }
.search-results { padding-left: 1.5rem; margin: 0; }
.search-results li { margin: 0.4rem 0; overflow-wrap: anywhere; }
.search-results .badge { font-size: 0.75rem; border: 1px solid currentColor; border-radius: 999px; padding: 0 0.4rem; color: var(--muted); }
.search-results code { color: var(--muted); }
.search-results .snippet { margin: 0.15rem 0 0; color: var(--muted); font-size: 0.9rem; white-space: pre-wrap; }
.slides > li.found, tr.found td { background: var(--fresh); }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.attachment-form { display: none; margin: 0.5rem 0 1rem; padding: 0.5rem 0.75rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }
#tab-panel[data-tab-id="sources"] #cite-source, #tab-panel[data-tab-id="files"] #add-file { display: block; }
.attachment-form label.wide { display: flex; margin: 0.5rem 0; }
.attachment-form textarea { font-family: inherit; }
.kept-text { margin: 0.5rem 0 1rem; padding: 0.5rem 0.75rem; border: 1px solid var(--line); border-radius: 6px; }
.kept-text label { display: block; margin: 0.5rem 0; }
.attachments li { margin: 0.5rem 0; }
.attachments .url { display: block; color: var(--muted); font-size: 0.9rem; }
.attachments .description { margin: 0.25rem 0; white-space: pre-wrap; }
.markdown-view { margin-top: 0.5rem; padding: 0.25rem 0.75rem; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; overflow-wrap: anywhere; }
.markdown-view:empty::before { content: "Nothing saved yet."; color: var(--muted); display: block; padding: 0.25rem 0; }
.markdown-view pre { overflow-x: auto; padding: 0.5rem; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; white-space: pre; }
.markdown-view blockquote { margin: 0.5rem 0; padding-left: 0.75rem; border-left: 4px solid var(--line); color: var(--muted); }
.markdown-view h3, .markdown-view h4, .markdown-view h5, .markdown-view h6 { margin: 0.75rem 0 0.25rem; }
.markdown-view h3 { font-size: 1.35rem; } .markdown-view h4 { font-size: 1.15rem; } .markdown-view h5 { font-size: 1rem; } .markdown-view h6 { font-size: 0.95rem; color: var(--muted); }
.markdown-view code { background: var(--panel); border-radius: 4px; padding: 0 0.2rem; }
.markdown-view pre code { background: none; padding: 0; }
.markdown-view ul, .markdown-view ol { padding-left: 1.5rem; }
a { color: var(--accent); }
header nav { margin: 0 0 0.25rem; }
#sign-out + #rename-note, #note-title-form { margin: 0.25rem 0; }
.members { padding-left: 1.25rem; }
.members li { margin: 0.25rem 0; overflow-wrap: anywhere; }
main.home { grid-template-columns: minmax(0, 1fr); max-width: 48rem; }
#notes-range { overflow-wrap: anywhere; }
.notes { list-style: none; padding: 0; margin: 0; }
.notes li { padding: 0.4rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
.notes a { font-weight: 600; }
.notes .badge { font-size: 0.75rem; border: 1px solid currentColor; border-radius: 999px; padding: 0 0.4rem; color: var(--muted); white-space: nowrap; }
.notes .badge.approved { color: var(--person); }
[hidden] { display: none !important; }
`;
