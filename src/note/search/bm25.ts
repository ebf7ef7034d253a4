/**
 * FTS5's bm25 ranking in JavaScript, for the in-memory stores: the same
 * formula, defaults and order of sums as SQLite's fts5_aux.c, so a memory
 * store ranks exactly as the SQLite one does (docs/search.md).
 *
 *   score = -Σ_phrases idf(p) · f(p,D)·(k1+1) / (f(p,D) + k1·(1 − b + b·|D|/avgdl))
 *   idf(p) = ln((N − n(p) + 0.5) / (n(p) + 0.5)), at least 1e-6
 *
 * N the documents, n(p) those holding the phrase, f(p,D) its occurrences in
 * D, |D| D's tokens, avgdl the tokens over N; k1 = 1.2, b = 0.75.
 */
import { uniqueTerms } from "./text.js";

const K1 = 1.2;
const B = 0.75;

/** Each document (its tokens) holding any of the terms, with its score: lower is better, as FTS5's bm25() returns it. */
export function bm25<K>(docs: ReadonlyMap<K, readonly string[]>, terms: readonly (readonly string[])[]): { key: K; score: number }[] {
  const phrases = uniqueTerms(terms);
  if (phrases.length === 0 || docs.size === 0) return [];
  let total = 0;
  for (const tokens of docs.values()) total += tokens.length;
  const avgdl = total / docs.size;
  const freqs = new Map<K, number[]>();
  const hits = phrases.map(() => 0);
  for (const [key, tokens] of docs) {
    const counts = phrases.map((phrase) => occurrences(tokens, phrase));
    counts.forEach((count, i) => {
      if (count > 0) hits[i] = (hits[i] as number) + 1;
    });
    if (counts.some((count) => count > 0)) freqs.set(key, counts);
  }
  const idf = hits.map((n) => {
    const value = Math.log((docs.size - n + 0.5) / (n + 0.5));
    return value <= 0 ? 1e-6 : value;
  });
  const out: { key: K; score: number }[] = [];
  for (const [key, counts] of freqs) {
    const size = (docs.get(key) as readonly string[]).length;
    let score = 0;
    for (let i = 0; i < phrases.length; i++) {
      const f = counts[i] as number;
      score += (idf[i] as number) * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * size) / avgdl)));
    }
    out.push({ key, score: -1.0 * score });
  }
  return out;
}

/** How many times the phrase's tokens follow one another in `tokens` (overlapping occurrences each count). */
function occurrences(tokens: readonly string[], phrase: readonly string[]): number {
  let count = 0;
  for (let i = 0; i + phrase.length <= tokens.length; i++) {
    let all = true;
    for (let j = 0; j < phrase.length; j++) {
      if (tokens[i + j] !== phrase[j]) {
        all = false;
        break;
      }
    }
    if (all) count++;
  }
  return count;
}

/** A document's tokens as FTS5's ascii tokenizer splits the indexed text (indexText joins tokens with single spaces). */
export function tokensOf(text: string): string[] {
  return text === "" ? [] : text.split(" ");
}
