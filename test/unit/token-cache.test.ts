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

  it("forgets a revoked token, and every token of a user with a new grant", async () => {
    const cache = new TokenCache<Valid>(10_000);
    const alice = counted({ userId: "alice", scope: [] });
    const bob = counted({ userId: "bob", scope: [] });
    await cache.validate("r", "a1", alice);
    await cache.validate("r", "a2", alice);
    await cache.validate("r", "b1", bob);
    cache.forgetToken("a1");
    await cache.validate("r", "a1", alice);
    expect(alice).toHaveBeenCalledTimes(3);
    cache.forgetUser("alice");
    await cache.validate("r", "a2", alice);
    await cache.validate("r", "b1", bob);
    expect(alice).toHaveBeenCalledTimes(4);
    expect(bob).toHaveBeenCalledTimes(1);
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
