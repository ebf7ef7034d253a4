/**
 * @module
 * A Slides tab's panel: its slides in order, each with its exact ID.
 */
import { $, h } from "./dom.js";
import type { Tab } from "./types.js";

export function renderSlides(tab: Tab): void {
  const slides = tab.slides ?? [];
  $("load-more").hidden = true;
  $("tab-content").replaceChildren(
    slides.length === 0
      ? h("p", { class: "hint" }, "No slides yet.")
      : h(
          "ol",
          { class: "slides" },
          ...slides.map((slide) =>
            h(
              "li",
              { "data-slide-id": slide.id },
              h("h3", {}, slide.title),
              ...(slide.body ? [h("p", { class: "body" }, slide.body)] : []),
              ...(slide.notes ? [h("p", { class: "notes" }, "Notes: ", slide.notes)] : []),
              h("p", { class: "meta" }, h("code", {}, slide.id)),
            ),
          ),
        ),
  );
}
