/**
 * The pipeline of every agent write (docs/spec.md §3), in its order: the arguments,
 * access, the idempotency key, the version, the target, then the change, the
 * version bump and the key's record. The key comes before the version: a
 * resend after a lost response always carries the version from before the
 * lost commit, and must get the first result back, not a conflict.
 */
import { openNote } from "./access.js";
import type { Caller, KeyedCommand, Output } from "../commands.js";
import type { NoteContext } from "../context.js";
import { labelOf, operationOf, touchedBy, type Names, type Touched } from "../changes.js";
import type { Reverting, UndoStep } from "../undo.js";
import { fingerprint, replay } from "./idempotency.js";
import { ok, type Result } from "../result.js";
import type { NoteMeta } from "../store.js";
import { Checks, fields } from "../validate.js";
import { checkVersion, commitVersion, nextVersion } from "./version.js";

/**
 * What a write's target step decided: a change to commit, with the Note's
 * meta after it and the write's first result (at the version it commits as,
 * not replayed), or an answer that writes nothing.
 */
type KeyedApplied<K extends KeyedCommand> =
  | { commit: true; meta: NoteMeta; result: Output<K>; names?: Names; undo?: UndoStep[]; touched?: Touched; reverts?: Reverting }
  /** Nothing to change: the answer at the current version; `recordKey` keeps it under the key all the same. */
  | { commit: false; answer: Output<K>; recordKey?: boolean };

/** An agent write's rules: module-level data, one per tool, that the pipeline runs in its order. */
export interface KeyedWrite<K extends KeyedCommand, I, P> {
  readonly tool: K;
  /**
   * The write's own fields, in a fixed order; any other but `expected_version`
   * and `idempotency_key` is refused. With the fields of a slide, they are
   * also what the arguments' fingerprint covers, in this order.
   */
  readonly fields: readonly string[];
  /**
   * Fields added after the write's first release: the fingerprint covers each
   * only when given, so a resend of a call recorded before they existed still
   * matches its first call.
   */
  readonly laterFields?: readonly string[];
  /** Checks of the write's own fields (the pipeline checks the version's and the key's). */
  validate: (input: Readonly<Record<string, unknown>>, checks: Checks) => void;
  /**
   * What the change needs from valid fields, or the argument's own error
   * (a URL that is no http(s) page is `invalid_url`): still an argument
   * check, so before access, the key and the version.
   */
  prepare: (input: I) => Result<P>;
  /**
   * The target checks and the change, over the meta read at the start; runs
   * only for a new, current call. `version` is the one the change commits as.
   */
  apply: (ctx: NoteContext, meta: NoteMeta, input: P, version: number) => Result<KeyedApplied<K>>;
}

/** `prepare` for a write whose fields, once valid, are all it needs. */
export const asGiven = <I>(input: I): Result<I> => ok(input);

/** Each write's accepted fields, listed once: a write's rules are module-level data, so the list is too. */
const TAKEN = new WeakMap<object, readonly string[]>();
function takenFields(write: { readonly fields: readonly string[]; readonly laterFields?: readonly string[] }): readonly string[] {
  let taken = TAKEN.get(write);
  if (taken === undefined) {
    taken = ["expected_version", "idempotency_key", ...write.fields, ...(write.laterFields ?? [])];
    TAKEN.set(write, taken);
  }
  return taken;
}

export function keyedWrite<K extends KeyedCommand, I extends { expected_version: number; idempotency_key: string }, P>(
  write: KeyedWrite<K, I, P>,
  ctx: NoteContext,
  caller: Caller,
  input: unknown,
): Result<Output<K>> {
  const { tool } = write;
  const given = fields(input);
  if (!given.ok) return given;
  const checks = new Checks();
  checks.onlyFields(given.value, takenFields(write));
  checks.writeFields(given.value);
  write.validate(given.value, checks);
  const invalid = checks.failure();
  if (invalid !== null) return invalid;
  const args = given.value as I;
  const prepared = write.prepare(args);
  if (!prepared.ok) return prepared;

  const opened = openNote(ctx, caller);
  if (!opened.ok) return opened;
  const meta = opened.value;

  const print = fingerprint(given.value, write.fields, write.laterFields);
  const first = replay(ctx.store, tool, args.idempotency_key, print, meta.version);
  // The record holds this tool's own first result.
  if (first !== null) return first as Result<Output<K>>;
  const conflict = checkVersion(ctx, args.expected_version, meta.version);
  if (conflict !== null) return conflict;

  const applied = write.apply(ctx, meta, prepared.value, nextVersion(meta));
  if (!applied.ok) return applied;
  const record = (result: Output<K>) => ctx.store.recordIdempotency({ key: args.idempotency_key, tool, fingerprint: print, result, created_at: ctx.now() });
  if (!applied.value.commit) {
    if (applied.value.recordKey === true) record(applied.value.answer);
    return ok(applied.value.answer);
  }
  const { result, undo, touched, reverts } = applied.value;
  commitVersion(ctx, applied.value.meta, {
    caller,
    operation: operationOf(tool, given.value),
    touched: touched ?? touchedBy(result),
    names: { ...labelOf(result), ...applied.value.names },
    undo,
    reverts,
  });
  record(result);
  return ok(result);
}
