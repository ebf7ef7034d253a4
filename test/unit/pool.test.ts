/** The tooling's one concurrency pool (scripts/lib/pool.ts): bounded, ordered, and it stops at the first failure. */
import { describe, expect, it } from "vitest";
import { pool } from "../../scripts/lib/pool.js";

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

describe("pool", () => {
  it("never runs more than `limit` tasks at once and returns the results in the items' order", async () => {
    let running = 0;
    let most = 0;
    const items = Array.from({ length: 20 }, (_, i) => i);
    const results = await pool(items, 3, async (item, index) => {
      running += 1;
      most = Math.max(most, running);
      // Later items finish sooner, so completion order differs from item order.
      for (let t = 0; t < 20 - item; t++) await tick();
      running -= 1;
      return `${item}@${index}`;
    });
    expect(most).toBe(3);
    expect(results).toEqual(items.map((i) => `${i}@${i}`));
  });

  it("starts no further item after a task fails, and rejects with that failure", async () => {
    const started: number[] = [];
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const run = pool(Array.from({ length: 10 }, (_, i) => i), 2, async (item) => {
      started.push(item);
      if (item === 1) throw new Error("item 1 failed");
      if (item === 0) await held; // still running when item 1 fails
    });
    await expect(run).rejects.toThrow("item 1 failed");
    release();
    for (let t = 0; t < 5; t++) await tick(); // item 0's lane has finished it by now
    expect(started).toEqual([0, 1]);
  });

  it("refuses a limit that would run nothing", async () => {
    await expect(pool([1], 0, async () => 1)).rejects.toThrow("limit must be a positive integer");
  });
});
