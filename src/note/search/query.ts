/**
 * A search's arguments as every side checks them (the edge, the Note's
 * `search` and `describe_hits`, the gateway's search across Notes): one
 * wording of each problem, naming the field.
 */
import { LIMITS } from "../limits.js";
import type { Checks } from "../validate.js";
import { queryTerms } from "./text.js";

export const PROBLEM_NO_WORD = "holds no word to search for (letters or digits): punctuation and spaces alone find nothing";

/** A query: required text, at most LIMITS.searchQueryLength, well-formed, with at least one word (a blank one has none). */
export function checkSearchQuery(checks: Checks, value: unknown, path = "query"): void {
  const before = checks.issues.length;
  checks.text(path, value, LIMITS.searchQueryLength, { required: true });
  if (checks.issues.length === before && typeof value === "string" && queryTerms(value).length === 0) checks.add(path, PROBLEM_NO_WORD);
}

/** A page's size: a whole number from 1 to LIMITS.searchPageSize (absent: LIMITS.searchPageDefault). */
export function checkSearchLimit(checks: Checks, value: unknown, path = "limit"): void {
  checks.integer(path, value, 1, LIMITS.searchPageSize);
}
