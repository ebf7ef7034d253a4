/**
 * Validated access tokens, remembered for a few seconds in this isolate.
 * Validating a token reads its KV record and unwraps its props with Web
 * Crypto: more than the rest of a tool call costs. A cached answer is only
 * ever an earlier answer of the authorization server for the same token and
 * resource; the resource server still checks its audience and expiry on
 * every request. Revoking a token through this Worker, or a new grant for its
 * user, forgets it here at once; other isolates forget it within `ttlMs`.
 */
export class TokenCache<T extends { userId?: string }> {
  readonly #entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async validate(resource: string, token: string, load: () => Promise<T | null>): Promise<T | null> {
    const key = `${resource}\n${token}`;
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.until > now) return hit.value;
    const value = await load();
    if (value === null) {
      this.#entries.delete(key);
      return null;
    }
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, until: now + this.ttlMs });
    return value;
  }

  /** Forgets a token for every resource (it was revoked). */
  forgetToken(token: string): void {
    for (const key of this.#entries.keys()) if (key.endsWith(`\n${token}`)) this.#entries.delete(key);
  }

  /** Forgets every token of a user (a new grant may have revoked their earlier ones). */
  forgetUser(userId: string): void {
    for (const [key, entry] of this.#entries) if (entry.value.userId === userId) this.#entries.delete(key);
  }
}
