/**
 * The one concurrency pool of the tooling (scripts, bench, sim, tests): runs an
 * async task over a list with a bounded number in flight.
 *
 * @example
 * const decks = await pool(noteIds, 8, (noteId) => createDeckNote(api, noteId));
 */

/**
 * Runs `task` on every item with at most `limit` in flight and returns the
 * results in the items' order. The first failure rejects at once and no
 * further item starts; tasks already running finish on their own.
 */
export async function pool<T, R>(items: readonly T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`pool: limit must be a positive integer, got ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
