/**
 * The verified caller inside a protected resource. The OAuth resource server
 * has already answered 401 for a missing, expired, revoked or foreign token;
 * here the token's user and scopes become the route's `principal`, and a
 * token without the scopes an operation needs gets 403 `insufficient_scope`.
 */
import { insufficientScope as challenge } from "@cloudflare/workers-oauth-provider";
import type { Context, MiddlewareHandler } from "hono";
import type { ResourceContext } from "../auth/oauth.js";
import { hasScopes, type Principal } from "../auth/scopes.js";
import type { Env } from "../env.js";
import { noteRequest } from "./request-log.js";

export type AppEnv = { Bindings: Env; Variables: { principal: Principal } };

export const withPrincipal: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("principal", principalOf(c.executionCtx as ResourceContext));
  await next();
};

/** The token's caller (and the request's log line learns who it is). */
export function principalOf(ctx: ResourceContext): Principal {
  noteRequest({ user: ctx.props.user, client: ctx.auth.clientId });
  return { user: ctx.props.user, scopes: ctx.auth.scope, client: ctx.auth.clientId, clientName: ctx.props.client_name ?? null };
}

/** 403 naming every scope the operation needs (so a client can step up), or null when the token has them. */
export function insufficientScope(c: Context, principal: Principal, needed: readonly string[]): Response | null {
  if (hasScopes(principal.scopes, needed)) return null;
  return challenge((c.executionCtx as ResourceContext).auth, [...needed], `This call needs ${needed.join(" ")}`);
}
