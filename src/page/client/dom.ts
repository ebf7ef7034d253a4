/**
 * @module
 * The page's few DOM helpers: every piece of data goes in as text
 * (textContent, attribute values), never as HTML.
 */

export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

/** An element with attributes and children; strings become text nodes, never markup. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** The status line (a polite live region): what the page last did or could not do. */
export function say(message: string): void {
  $("status").textContent = message;
}

export function setLive(state: string): void {
  const element = $("live-state");
  element.textContent = state;
  element.dataset.state = state;
}
