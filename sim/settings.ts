/**
 * The run's settings (`--seed`, `--trials`) and how each experiment reads
 * them. Without `--seed`, every experiment uses the seeds of docs/spec.md §9 (7 for
 * experiment 1; 1, 2, 3 for experiment 3) and 7 where it names none.
 * `--trials N` sets experiment 1's trials per K to N (docs/spec.md §9.1: 10,000) and
 * scales experiment 4's sessions (300), experiment 5's decks (2,000), experiment
 * 6's (500) and experiment 7's trials a cell (2,000) by
 * N / 10,000, rounded, at least 1. Experiment 3 is not scaled: 50 intents
 * per run over three seeds is its definition, and it is small.
 */
export interface Settings {
  /** One seed for every experiment (experiment 3 runs seed, seed + 1, seed + 2); absent: the seeds of docs/spec.md §9. */
  seed?: number | undefined;
  /** Experiment 1's trials per K; the other scaled counts follow. */
  trials: number;
}

export const SPEC_TRIALS = 10_000;
export const DEFAULT_SETTINGS: Settings = { trials: SPEC_TRIALS };

/** The seed of docs/spec.md §9 for experiments 1, 2, 4 and 5 (it names one for experiment 1 only). */
export const SPEC_SEED = 7;
/** The seeds of docs/spec.md §9 for experiment 3. */
export const SPEC_RUN_SEEDS = [1, 2, 3] as const;

/** `base` scaled by `--trials` against the 10,000 of docs/spec.md §9.1. */
export function scaled(base: number, settings: Settings): number {
  return Math.max(1, Math.round((base * settings.trials) / SPEC_TRIALS));
}

export function seedOf(settings: Settings): number {
  return settings.seed ?? SPEC_SEED;
}

export function runSeedsOf(settings: Settings): number[] {
  return settings.seed === undefined ? [...SPEC_RUN_SEEDS] : [settings.seed, settings.seed + 1, settings.seed + 2];
}
