/**
 * @module
 * The preview as DOM: a pure function of a Preview. Every piece of data goes
 * in as text (textContent, attribute values), never as HTML, so a slide titled
 * `<img src=x onerror=alert(1)>` shows those characters and nothing runs.
 */
import type { Preview, PreviewSlide } from "./deck.js";

/** The preview's element, ready to replace the last one. */
export function previewElement(doc: Document, preview: Preview): HTMLElement {
  if (preview.kind === "message") return element(doc, "p", "message", preview.text);
  const section = element(doc, "section", "deck");
  const header = element(doc, "header", "");
  header.append(element(doc, "h1", "label", preview.label), element(doc, "p", "caption", preview.caption));
  const list = element(doc, "ol", "slides");
  list.append(...preview.slides.map((slide) => slideElement(doc, slide)));
  section.append(header, list);
  return section;
}

function slideElement(doc: Document, slide: PreviewSlide): HTMLElement {
  const item = element(doc, "li", "slide");
  if (slide.id !== null) item.dataset.slideId = slide.id;
  const head = element(doc, "div", "head");
  head.append(element(doc, "span", "number", String(slide.number)), element(doc, "h2", "title", slide.title));
  if (slide.id !== null) head.append(element(doc, "code", "id", slide.id));
  item.append(head);
  if (slide.body !== "") item.append(element(doc, "p", "body", slide.body));
  if (slide.notes !== "") {
    // Folded: a person opens the notes when they want them.
    const notes = element(doc, "details", "notes");
    notes.append(element(doc, "summary", "", "Speaker notes"), element(doc, "p", "", slide.notes));
    item.append(notes);
  }
  return item;
}

function element<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (className !== "") node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}
