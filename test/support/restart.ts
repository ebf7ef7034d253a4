/**
 * Restarting objects in a test (abortAllDurableObjects), and ringing a Note's
 * alarm by hand, at a moment the Note is not delivering to its members'
 * directories.
 *
 * A write's search documents leave its Note when the Note's alarm rings,
 * SEARCH_DELIVERY_MS after it. An abort that cuts that delivery short makes the
 * Note log the failure (src/storage/directory-outbox.ts), as it should in
 * production, where the alarm retries it. But in this test runtime
 * (vitest-pool-workers 0.15, the last line for Node 20) an object that logs
 * after its abort leaves the file's runtime unable to shut down, and the whole
 * run never exits. And a test that rings the alarm itself must not find it
 * ringing on its own. So a test settles its Notes first: each one's alarm is
 * rung until its outbox is empty and the alarm is set for later (the alarm
 * prunes nothing that is not due).
 */
import { abortAllDurableObjects, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { SEARCH_DELIVERY_MS } from "../../src/note/search/contract.js";

/**
 * Until this Note's alarm has rung for what it owes its members (delivered, or the retry set
 * for later if the delivery failed) and is not about to ring again.
 */
async function settle(id: DurableObjectId): Promise<void> {
  const stub = env.NOTES.get(id);
  for (let tries = 0; ; tries++) {
    const { owes, alarm } = await runInDurableObject(stub, async (_instance, state) => {
      const { sql } = state.storage;
      // An erased Note (deleted) has no tables at all.
      const owes = sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'outbox'").toArray().length > 0 && sql.exec("SELECT 1 FROM outbox LIMIT 1").toArray().length > 0;
      return { owes, alarm: await state.storage.getAlarm() };
    });
    if (!owes && (alarm === null || alarm > Date.now() + SEARCH_DELIVERY_MS)) return;
    // Rung to its end: delivered, or a failed delivery's retry set for later. Nothing runs now.
    if (await runDurableObjectAlarm(stub)) return;
    // No alarm set: it is ringing on its own now (or the runtime retries one an abort cut short, seconds later).
    if (tries === 1_000) throw new Error(`Note object ${id.toString()} owes its members' directories and its alarm has not rung for 10 s`);
    await scheduler.wait(10);
  }
}

/** These Notes settled, or every Note the runtime holds (an earlier test's may be delivering too). */
export async function deliverOwed(...noteIds: string[]): Promise<void> {
  const ids = noteIds.length > 0 ? noteIds.map((noteId) => env.NOTES.idFromName(noteId)) : await listDurableObjectIds(env.NOTES);
  for (const id of ids) await settle(id);
}

/** Every object restarted, once no Note is delivering. */
export async function restartAfterDelivery(): Promise<void> {
  await deliverOwed();
  await abortAllDurableObjects();
}
