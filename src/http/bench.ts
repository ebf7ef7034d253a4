/**
 * Routes for `npm run bench` only, mounted when BENCH_ROUTES is "true" (the
 * benchmark passes it to wrangler dev; no deployment sets it): the baseline,
 * one trivial call to a Durable Object, an object's cost counters, and a
 * way to fill a Note with generated sources.
 */
import { Hono } from "hono";
import type { Env } from "../env.js";

export const bench = new Hono<{ Bindings: Env }>();

bench.use("*", async (c, next) => {
  // `--var BENCH_ROUTES:true` arrives as a boolean, a [vars] entry as a string.
  if (String(c.env.BENCH_ROUTES) !== "true") return c.json({ error: { code: "not_found", message: "No such route" } }, 404);
  await next();
});

bench.get("/baseline", async (c) => {
  await c.env.NOTES.get(c.env.NOTES.idFromName("bench-baseline")).ping();
  return c.text("ok");
});

bench.get("/stats/:note", async (c) => c.json(await c.env.NOTES.get(c.env.NOTES.idFromName(c.req.param("note"))).stats()));

bench.post("/seed-sources/:note", async (c) => {
  const count = Number(c.req.query("count"));
  if (!Number.isInteger(count) || count < 1 || count > 100_000) return c.json({ error: { code: "invalid_arguments", message: "count: 1 to 100000" } }, 400);
  const total = await c.env.NOTES.get(c.env.NOTES.idFromName(c.req.param("note"))).seedSources(count);
  return c.json({ sources: total });
});
