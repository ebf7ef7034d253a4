/** The isolate's memory of validated tokens: it saves the authorization server's work, never widens what it said. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { TokenCache } from "../../src/auth/token-cache.js";

type Valid = { userId?: string; scope: string[] };

function counted(value: Valid | null) {
  const load = vi.fn(async () => value);
  return load;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the token cache", () => {
  it("asks the authorization server once per token and resource within its window", async () => {
    const cache = new TokenCache<Valid>(10_000);
    const load = counted({ userId: "alice", scope: ["osfoundry:read"] });
    for (let i = 0; i < 5; i++) expect(await cache.validate("r", "t", load)).toEqual({ userId: "alice", scope: ["osfoundry:read"] });
    expect(load).toHaveBeenCalledTimes(1);
    await cache.validate("other-resource", "t", load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("asks again once the window has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const cache = new TokenCache<Valid>(10_000);
    const load = counted({ userId: "alice", scope: [] });
    await cache.validate("r", "t", load);
    vi.setSystemTime(Date.now() + 10_001);
    await cache.validate("r", "t", load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("never remembers a refusal", async () => {
    const cache = new TokenCache<Valid>(10_000);
    const load = counted(null);
    expect(await cache.validate("r", "t", load)).toBeNull();
    expect(await cache.validate("r", "t", load)).toBeNull();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("revoking one token of a grant forgets every token of that grant, and only that grant", async () => {
    const cache = new TokenCache<Valid>(10_000);
    const alice = counted({ userId: "alice", scope: [] });
    // The library's tokens are userId:grantId:secret; an access token and the grant's refresh token share the prefix.
    for (const token of ["alice:grant1:access1", "alice:grant1:access2", "alice:grant2:access3"]) await cache.validate("r", token, alice);
    expect(alice).toHaveBeenCalledTimes(3);
    cache.forgetGrantOf("alice:grant1:refresh");
    for (const token of ["alice:grant1:access1", "alice:grant1:access2", "alice:grant2:access3"]) await cache.validate("r", token, alice);
    expect(alice).toHaveBeenCalledTimes(5);
  });

  it("forgets every token of a user with a new grant, and no one else's", async () => {
    const cache = new TokenCache<Valid>(10_000);
    const alice = counted({ userId: "alice", scope: [] });
    const bob = counted({ userId: "bob", scope: [] });
    await cache.validate("r", "alice:g1:a", alice);
    await cache.validate("r", "alice:g2:b", alice);
    await cache.validate("r", "bob:g3:c", bob);
    cache.forgetUser("alice");
    await cache.validate("r", "alice:g1:a", alice);
    await cache.validate("r", "alice:g2:b", alice);
    await cache.validate("r", "bob:g3:c", bob);
    expect(alice).toHaveBeenCalledTimes(4);
    expect(bob).toHaveBeenCalledTimes(1);
  });

  it("a validation under way while its grant is revoked does not keep the answer it read before", async () => {
    const cache = new TokenCache<Valid>(10_000);
    let answer: (value: Valid) => void = () => {};
    const slow = vi.fn(() => new Promise<Valid | null>((resolve) => (answer = resolve)));
    const pending = cache.validate("r", "alice:g1:a", slow);
    cache.forgetGrantOf("alice:g1:refresh");
    answer({ userId: "alice", scope: [] });
    await pending;
    const again = counted(null);
    expect(await cache.validate("r", "alice:g1:a", again)).toBeNull();
    expect(again).toHaveBeenCalledTimes(1);
  });

  it("stays within its size, dropping the oldest entry first", async () => {
    const cache = new TokenCache<Valid>(10_000, 2);
    const load = counted({ userId: "u", scope: [] });
    await cache.validate("r", "1", load);
    await cache.validate("r", "2", load);
    await cache.validate("r", "3", load);
    await cache.validate("r", "3", load);
    await cache.validate("r", "2", load);
    expect(load).toHaveBeenCalledTimes(3);
    await cache.validate("r", "1", load);
    expect(load).toHaveBeenCalledTimes(4);
  });
});
