/**
 * A real OpenID provider on loopback for the end-to-end tests: `oidc-provider`
 * (the certified Node implementation) with the connector registered as its
 * confidential client, its development sign-in pages (any login name is an
 * account whose `sub` is that name), and its signing key chosen here.
 *
 * It listens behind a small reverse proxy, which is the address the provider
 * calls its issuer and the connector is given. The proxy passes everything
 * through, except that a test may ask it to rewrite the ID token in the next
 * token response: it re-signs the changed claims with the provider's own key,
 * so the connector sees a validly signed token with a wrong nonce, issuer or
 * audience, which a real provider never sends on its own.
 */
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose";
import Provider from "oidc-provider";

const HOST = "127.0.0.1";

export interface UpstreamOptions {
  /** The port the issuer (the proxy) listens on. */
  port: number;
  clientId: string;
  clientSecret: string;
  /** The connector's callback, registered as the client's only redirect URI. */
  redirectUri: string;
}

export interface Upstream {
  /** The issuer: the proxy's origin. */
  issuer: string;
  /** The next token response's ID token gets these claims changed (re-signed with the provider's key). */
  rewriteNextIdToken(change: (claims: JWTPayload) => JWTPayload): void;
  /** How many token requests the provider has answered. */
  tokenRequests(): number;
  close(): Promise<void>;
}

export async function startUpstream(options: UpstreamOptions): Promise<Upstream> {
  const issuer = `http://${HOST}:${options.port}`;
  const kid = "test-signing-key";
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [privateJwk] },
    cookies: { keys: ["an-e2e-test-cookie-signing-key"] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    // Explicit lifetimes: the defaults work but print a notice each.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
  });
  const real = createServer(provider.callback());
  await listen(real, 0);
  const realPort = (real.address() as AddressInfo).port;

  let rewrite: ((claims: JWTPayload) => JWTPayload) | null = null;
  let tokens = 0;
  const proxy = createServer((incoming, outgoing) => {
    const upstream = forward({ host: HOST, port: realPort, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
      if (incoming.url?.startsWith("/token") !== true) {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        return;
      }
      tokens++;
      const change = rewrite;
      rewrite = null;
      void relayToken(answer, outgoing, change, privateKey);
    });
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await listen(proxy, options.port);

  return {
    issuer,
    rewriteNextIdToken: (change) => {
      rewrite = change;
    },
    tokenRequests: () => tokens,
    close: async () => {
      await Promise.all([close(proxy), close(real)]);
    },
  };
}

/** Passes the token response on, its ID token's claims changed by `change` and signed again with the provider's key. */
async function relayToken(answer: IncomingMessage, outgoing: ServerResponse, change: ((claims: JWTPayload) => JWTPayload) | null, key: CryptoKey): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  let body = Buffer.concat(chunks).toString("utf8");
  if (change !== null && answer.statusCode === 200) {
    const json = JSON.parse(body) as { id_token: string };
    const header = decodeProtectedHeader(json.id_token);
    json.id_token = await new SignJWT(change(decodeJwt(json.id_token)))
      .setProtectedHeader({ alg: header.alg ?? "RS256", kid: header.kid, typ: header.typ })
      .sign(key);
    body = JSON.stringify(json);
  }
  const headers = { ...answer.headers, "content-length": String(Buffer.byteLength(body)) };
  delete headers["transfer-encoding"];
  outgoing.writeHead(answer.statusCode ?? 502, headers);
  outgoing.end(body);
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => resolve());
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
