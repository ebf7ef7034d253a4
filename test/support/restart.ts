/**
 * Restarting objects in a test (abortAllDurableObjects) at a moment no Note is
 * delivering to its members' directories.
 *
 * A write's search documents leave its Note when the Note's alarm rings,
 * SEARCH_DELIVERY_MS after it. An abort that cuts that delivery short makes the
 * Note log the failure (src/storage/directory-outbox.ts), as it should in
 * production, where the alarm retries it. But in this test runtime
 * (vitest-pool-workers 0.15, the last line for Node 20) an object that logs
 * after its abort leaves the file's runtime unable to shut down, and the whole
 * run never exits. So a test delivers what its Notes owe first: it rings each
 * one's alarm until its outbox is empty (the alarm prunes nothing that is not
 * due), then restarts.
 */
import { abortAllDurableObjects, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";

/**
 * Every Note's owed directory entries delivered, by its own alarm: every Note the
 * test file made, since an earlier test's Note may be delivering too.
 */
export async function deliverOwed(): Promise<void> {
  for (const id of await listDurableObjectIds(env.NOTES)) {
    const stub = env.NOTES.get(id);
    // An erased Note (deleted) has no tables at all.
    const owes = () =>
      runInDurableObject(stub, (_instance, state) => {
        const { sql } = state.storage;
        return sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length > 0 && sql.exec("SELECT 1 FROM outbox LIMIT 1").toArray().length > 0;
      });
    for (let tries = 0; await owes(); tries++) {
      if (tries === 200) throw new Error(`Note object ${id.toString()} still owes its members' directories after 200 rings of its alarm`);
      // false: its alarm is running now (it rang on its own); let it finish.
      if (!(await runDurableObjectAlarm(stub))) await scheduler.wait(10);
    }
  }
}

/** Every object restarted, once no Note owes anything. */
export async function restartAfterDelivery(): Promise<void> {
  await deliverOwed();
  await abortAllDurableObjects();
}
