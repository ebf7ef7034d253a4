/**
 * The abuse limits as wrangler.toml declares them, under a real `wrangler dev`
 * with the limits on (every other local run has them off, dev/local.env): the
 * rate limiting binding runs there, and registrations stop at 10 a minute per
 * client address. (`wrangler dev` passes a client's own CF-Connecting-IP on;
 * Cloudflare's edge would set it.)
 */
import { expect, it } from "vitest";
import { useLocalServer } from "../support/e2e-server.js";

const running = useLocalServer(async () => {}, undefined, { RATE_LIMITS: "on" });

function register(address: string): Promise<Response> {
  return fetch(`${running().url}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": address },
    body: JSON.stringify({ client_name: "e2e limits", redirect_uris: ["http://127.0.0.1:9/callback"], token_endpoint_auth_method: "none" }),
  });
}

it("wrangler.toml's registration limit: 10 a minute from one address, then 429 with Retry-After: 60", async () => {
  // The local counter's windows are whole minutes of the clock: a run that crosses one is run again.
  for (let attempt = 1; ; attempt++) {
    const minute = Math.floor(Date.now() / 60_000);
    const address = `203.0.113.${attempt}`;
    const answers: Response[] = [];
    for (let i = 0; i < 15; i++) answers.push(await register(address));
    if (Math.floor(Date.now() / 60_000) !== minute && attempt === 1) continue;
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(10).fill(201), ...Array<number>(5).fill(429)]);
    expect(answers[10]?.headers.get("Retry-After")).toBe("60");
    expect(await answers[10]?.json()).toMatchObject({ error: "rate_limited" });
    expect((await register("203.0.113.200")).status).toBe(201);
    return;
  }
});
