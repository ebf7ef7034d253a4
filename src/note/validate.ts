/**
 * The Note's own argument checks. The edge validates the same shapes with zod
 * first; these run again where the rules live, so a caller that skipped the
 * edge (the simulations, a future RPC client) cannot write what the edge
 * would refuse.
 */
import type { Issue } from "./errors.js";
import type { SlideInput } from "./commands.js";
import { LIMITS } from "./limits.js";

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

export class Checks {
  readonly issues: Issue[] = [];

  add(path: string, problem: string): void {
    this.issues.push({ path, problem });
  }

  /** A text field: within `max` characters, no control characters but tab and newlines. */
  text(path: string, value: string | undefined, max: number, options: { required?: boolean; nonBlank?: boolean } = {}): void {
    if (value === undefined) {
      if (options.required === true) this.add(path, "required");
      return;
    }
    if (value.length > max) this.add(path, `at most ${max} characters (got ${value.length})`);
    else if (options.nonBlank === true && value.trim() === "") this.add(path, "must not be empty or blank");
    else if (CONTROL.test(value)) this.add(path, "must not contain control characters");
  }

  integer(path: string, value: number | undefined, min: number, max: number): void {
    if (value === undefined) return;
    if (!Number.isSafeInteger(value)) this.add(path, "must be an integer");
    else if (value < min) this.add(path, `must be at least ${min}`);
    else if (value > max) this.add(path, `must be at most ${max}`);
  }

  write(input: { expected_version: number; idempotency_key: string }): void {
    this.integer("expected_version", input.expected_version, 1, Number.MAX_SAFE_INTEGER);
    const key = input.idempotency_key;
    if (key.length === 0 || key.length > LIMITS.idempotencyKeyLength) {
      this.add("idempotency_key", `must be 1 to ${LIMITS.idempotencyKeyLength} characters (got ${key.length})`);
    } else if (!PRINTABLE_ASCII.test(key)) {
      this.add("idempotency_key", "must be printable ASCII characters (space to ~)");
    }
  }

  slides(path: string, slides: readonly SlideInput[], min: number): void {
    if (slides.length < min) this.add(path, `at least ${min} slide${min === 1 ? "" : "s"}`);
    if (slides.length > LIMITS.slidesPerCall) this.add(path, `at most ${LIMITS.slidesPerCall} slides per call (got ${slides.length})`);
    slides.forEach((slide, i) => this.slide(slide, `${path}[${i}].`));
  }

  /** A slide's fields, named `${prefix}title` and so on: "slides[2]." in a list, "" for a call's own fields. */
  slide(slide: SlideInput, prefix = ""): void {
    this.text(`${prefix}title`, slide.title, LIMITS.slideTitleLength, { required: true, nonBlank: true });
    this.text(`${prefix}body`, slide.body, LIMITS.slideBodyLength);
    this.text(`${prefix}notes`, slide.notes, LIMITS.slideNotesLength);
  }

  label(path: string, label: string | undefined, required: boolean): void {
    this.text(path, label, LIMITS.tabLabelLength, { required, nonBlank: true });
    if (label !== undefined && /[\r\n]/.test(label)) this.add(path, "must be one line");
  }
}
