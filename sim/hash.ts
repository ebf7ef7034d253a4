/**
 * Small deterministic hashes: integer mixing that derives the simulations'
 * random streams from a seed and labels, and a 64-bit string hash that the
 * source-key policies of experiment 4 turn into idempotency keys. Integer
 * arithmetic only (Math.imul, shifts), so every machine computes the same bits.
 */

/** MurmurHash3's 32-bit finalizer: every input bit reaches every output bit. */
export function fmix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * One 32-bit value from a seed and a path of integer labels, e.g.
 * `mix(seed, experiment, unit, attempt)`. Different paths give unrelated values.
 */
export function mix(seed: number, ...labels: readonly number[]): number {
  let h = fmix32((seed >>> 0) ^ 0x9e3779b9);
  for (const label of labels) h = fmix32((h + Math.imul(label >>> 0, 0x27d4eb2f) + 0x165667b1) >>> 0);
  return h;
}

/**
 * A 64-bit hash of a string (two 32-bit lanes over its UTF-16 code units, as
 * in cyrb53), as 16 hex digits. Not cryptographic: it names a key, it does
 * not protect one.
 *
 * @example
 * hashHex("https://example.org/report"); // 16 hex digits, the same everywhere
 */
export function hashHex(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return hex8(h2) + hex8(h1);
}

/** A 32-bit value as eight hex digits. */
export function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}
