/** The Worker's own small HTML pages (the consent page, sign-in answers): one template, one escape. */

/** A page; `title` is text (the `<title>` holds no markup), `heading` the `<h1>`'s markup when it has some. */
export function pageHtml(title: string, body: string, heading = title): string {
  return `<!doctype html>
<html lang=en><meta charset=utf-8><meta name=viewport content="width=device-width">
<title>${title}</title>
<style>body{font:16px system-ui;max-width:34rem;margin:3rem auto;padding:0 1rem}label{line-height:2}.warn{color:#8a4b00}</style>
<h1>${heading}</h1>
${body}
</html>`;
}

/**
 * Text for a page, HTML-escaped and well-formed: a lone surrogate becomes
 * U+FFFD instead of bytes that are not UTF-8 (the runtime encodes it as ED A0 80).
 */
export function escape(value: string): string {
  return value.toWellFormed().replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
