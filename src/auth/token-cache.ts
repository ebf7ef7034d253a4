/**
 * Validated access tokens, remembered for a few seconds in this isolate.
 * Validating a token reads its KV record and unwraps its props with Web
 * Crypto: more than the rest of a tool call costs. A cached answer is only
 * ever an earlier answer of the authorization server for the same token and
 * resource; the resource server still checks its audience and expiry on
 * every request. Revoking any token of a grant through this Worker, or a new
 * grant for its user, forgets the grant's tokens here at once; other isolates
 * forget them within `ttlMs`.
 */
export class TokenCache<T extends { userId?: string }> {
  readonly #entries = new Map<string, { value: T; grant: string; until: number }>();
  /** Counts forgets: a validation that was under way during one must not store what it read before it. */
  #forgets = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async validate(resource: string, token: string, load: () => Promise<T | null>): Promise<T | null> {
    const key = `${resource}\n${token}`;
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.until > now) return hit.value;
    const forgets = this.#forgets;
    const value = await load();
    if (value === null) {
      this.#entries.delete(key);
      return null;
    }
    if (forgets !== this.#forgets) return value;
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { value, grant: grantOf(token), until: now + this.ttlMs });
    return value;
  }

  /** Forgets every token of the grant this token belongs to (a token of it was revoked, or the whole grant). */
  forgetGrantOf(token: string): void {
    this.#forget((entry) => entry.grant === grantOf(token));
  }

  /** Forgets every token of a user (a new grant may have revoked their earlier ones). */
  forgetUser(userId: string): void {
    this.#forget((entry) => entry.value.userId === userId);
  }

  #forget(matches: (entry: { value: T; grant: string }) => boolean): void {
    this.#forgets++;
    for (const [key, entry] of this.#entries) if (matches(entry)) this.#entries.delete(key);
  }
}

/**
 * The user and grant a token belongs to: the OAuth library's access and
 * refresh tokens are `{userId}:{grantId}:{secret}` (its documented format,
 * which it splits the same way); null for a string of any other form.
 */
export function tokenGrant(token: string): { userId: string; grantId: string } | null {
  const [userId, grantId, secret, ...more] = token.split(":");
  return userId === undefined || grantId === undefined || secret === undefined || more.length > 0 ? null : { userId, grantId };
}

/** The key every token of one grant shares (a token of no grant is its own). */
function grantOf(token: string): string {
  const grant = tokenGrant(token);
  return grant === null ? token : `${grant.userId}:${grant.grantId}`;
}

/**
 * Where the OAuth library keeps an access token's record in OAUTH_KV:
 * `token:{userId}:{grantId}:{hex SHA-256 of the token}` (as its
 * `validateToken` reads it). Revoking the token, or its whole grant, deletes
 * the record; null for a string that is no token of a grant.
 */
export async function accessTokenRecordKey(token: string): Promise<string | null> {
  const grant = tokenGrant(token);
  if (grant === null) return null;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return `token:${grant.userId}:${grant.grantId}:${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** Whether an access token's record (see `accessTokenRecordKey`) is still there: false once it was revoked, with its grant or alone. */
export async function accessTokenStands(kv: { get(key: string): Promise<string | null> }, recordKey: string): Promise<boolean> {
  return (await kv.get(recordKey)) !== null;
}
