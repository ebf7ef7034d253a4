/**
 * Seeded random streams for the simulations: the same seed gives the same
 * draws on every machine and in every mode. Each unit of an experiment (a
 * trial, a run's intent, a session, a deck's write) draws from its own stream,
 * derived from the seed and the unit's labels, so a unit's draws do not
 * depend on how many draws other units made: the in-process and live runs,
 * and the policies compared on one table, see the same random events.
 */
import { hex8, mix } from "./hash.js";

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of
 * state, 32-bit integer arithmetic only, so it is exact in every JavaScript
 * engine.
 *
 * @example
 * const random = stream(7, 1, 2); // seed 7, experiment 1, K = 2
 * random.int(5); // 0..4
 */
export class Random {
  #a: number;
  #b: number;
  #c: number;
  #d = 1;

  constructor(seed32: number) {
    this.#a = mix(seed32, 1);
    this.#b = mix(seed32, 2);
    this.#c = mix(seed32, 3);
    // Warm-up, as sfc32's author recommends, so nearby seeds diverge at once.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1), in steps of 2^-32. */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** `k` distinct items in random order (a partial Fisher–Yates shuffle). */
  sample<T>(items: readonly T[], k: number): T[] {
    const pool = [...items];
    for (let i = 0; i < k; i++) {
      const j = i + this.int(pool.length - i);
      const swap = pool[i] as T;
      pool[i] = pool[j] as T;
      pool[j] = swap;
    }
    return pool.slice(0, k);
  }

  /**
   * A Poisson count with mean `lambda`, by inversion with one uniform draw.
   * e^-lambda comes from its series, not Math.exp, so no engine's libm can
   * move a boundary.
   */
  poisson(lambda: number): number {
    const u = this.next();
    let term = expNeg(lambda);
    let cumulative = term;
    let k = 0;
    while (u >= cumulative && k < 1000) {
      k += 1;
      term = (term * lambda) / k;
      cumulative += term;
    }
    return k;
  }

  /** A version-4 UUID made of this stream's bits: unique per draw, yet reproducible. */
  uuid(): string {
    const hex = [this.uint32(), this.uint32(), this.uint32(), this.uint32()].map(hex8).join("");
    // Version nibble 4; variant bits 10 in the top of the fourth group.
    const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}

/** The stream for a seed and a path of integer labels (experiment, unit, …). */
export function stream(seed: number, ...labels: readonly number[]): Random {
  return new Random(mix(seed, ...labels));
}

/** e^-x for 0 ≤ x ≤ 20 by its Taylor series: + − × ÷ only, exact to the last bits everywhere. */
export function expNeg(x: number): number {
  if (!(x >= 0 && x <= 20)) throw new RangeError(`expNeg(${x}): expected 0 ≤ x ≤ 20`);
  // e^-x = 1 / e^x; the series of e^x has only positive terms, so it does not cancel.
  let sum = 1;
  let term = 1;
  for (let n = 1; n < 200 && term > sum * 1e-18; n++) {
    term = (term * x) / n;
    sum += term;
  }
  return 1 / sum;
}
