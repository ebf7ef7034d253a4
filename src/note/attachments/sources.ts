/**
 * Citations in the Sources tab (docs/spec.md §5): an http(s) page, at most once per
 * Note. A page already attached under any spelling of its URL comes back as
 * it is, with nothing written, as the desktop app refuses a link it has.
 */
import type { Input } from "../commands.js";
import { limitExceeded } from "../errors.js";
import type { KeyedWrite } from "../pipeline/keyed-write.js";
import { LIMITS } from "../limits.js";
import { fail, ok } from "../result.js";
import { clip } from "../unicode.js";
import { parseSourceUrl, type ParsedUrl } from "./url.js";

type ParsedPage = Extract<ParsedUrl, { ok: true }>;

/** What a citation needs once its fields are valid: them, and its URL parsed. */
interface Citation {
  title: string;
  description: string | undefined;
  page: ParsedPage;
}

/** `add_note_source`. */
export const ADD_SOURCE: KeyedWrite<"add_source", Input<"add_source">, Citation> = {
  tool: "add_source",
  fields: ["title", "url", "description"],
  validate: (i, checks) => {
    checks.text("title", i.title, LIMITS.sourceTitleLength, { required: true, nonBlank: true });
    // The URL's characters are parseSourceUrl's to judge, as invalid_url.
    if (typeof i.url !== "string") checks.add("url", i.url === undefined ? "required" : "must be a string");
    checks.text("description", i.description, LIMITS.sourceDescriptionLength);
  },
  prepare: (i) => {
    const parsed = parseSourceUrl(i.url);
    // The answer names the URL, but not all 200 KB of one that is far too long.
    if (!parsed.ok) return fail({ code: "invalid_url", message: `url: ${parsed.reason}.`, url: clip(i.url), reason: parsed.reason });
    return ok({ title: i.title, description: i.description, page: parsed });
  },
  apply: (ctx, meta, i, version) => {
    const parsed = i.page;
    const existing = ctx.store.sourceByNormalizedUrl(parsed.normalized);
    if (existing !== null) {
      return ok({
        commit: false,
        answer: {
          note_id: ctx.id,
          source_id: sourceId(existing.seq),
          title: existing.title,
          url: existing.url,
          normalized_url: existing.normalized_url,
          already_attached: true,
          version: meta.version,
          replayed: false,
          arguments_differ: false,
        },
      });
    }
    if (meta.source_count >= LIMITS.sourcesPerNote) {
      return fail(limitExceeded("sources_per_note", LIMITS.sourcesPerNote, "This Note has as many sources as it may"));
    }
    const title = i.title.trim();
    const source = { title, url: parsed.url, normalized_url: parsed.normalized, description: i.description ?? "", added_at: ctx.now() };
    const seq = ctx.store.insertSource(source);
    const result = {
      note_id: ctx.id,
      source_id: sourceId(seq),
      title,
      url: parsed.url,
      normalized_url: parsed.normalized,
      already_attached: false,
      version,
      replayed: false,
      arguments_differ: false,
    };
    return ok({ commit: true, meta: { ...meta, source_count: meta.source_count + 1 }, result, names: { source_title: title }, undo: [{ do: "source_add" as const, source: { seq, ...source } }] });
  },
};

export function sourceId(seq: number): string {
  return `source-${seq}`;
}
