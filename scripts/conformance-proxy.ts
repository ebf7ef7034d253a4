/**
 * `tsx scripts/conformance-proxy.ts <target origin>` with `TOKEN` in the
 * environment: a loopback HTTP proxy (127.0.0.1:$PROXY_PORT, default a free
 * port) that adds `Authorization: Bearer $TOKEN` to every request it forwards
 * to the connector. The MCP conformance suite (scripts/conformance.sh) has no
 * option for a token, so its runs "with a token" go through this. Prints its
 * own origin on stdout once listening.
 *
 * Everything else reaches the connector as the suite sent it, with one
 * translation: a Host or Origin naming this proxy is rewritten to name the
 * target, because the connector's tokens are bound to its own origin. Any
 * other Host or Origin (the suite's DNS-rebinding probe sends
 * `evil.example.com`) passes through untouched, so the connector still judges it.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";

const target = new URL(process.argv[2] ?? "");
const token = process.env.TOKEN ?? "";
if (!/^https?:$/.test(target.protocol) || token === "") {
  console.error("Usage: TOKEN=… tsx scripts/conformance-proxy.ts http://127.0.0.1:8787");
  process.exit(2);
}

/** Connection-scoped headers (RFC 9110 §7.6.1): they belong to one hop, not to the request. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]);

let own = ""; // this proxy's origin, known once it listens

function forwardedHeaders(incoming: IncomingHttpHeaders): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
  if (headers.host === new URL(own).host) headers.host = target.host;
  if (headers.origin === own) headers.origin = target.origin;
  headers.authorization ??= `Bearer ${token}`;
  return headers;
}

const server = createServer((req, res) => {
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const upstream = send(new URL(req.url ?? "/", target), { method: req.method, headers: forwardedHeaders(req.headers) }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", (error) => {
    if (res.headersSent) res.destroy(error);
    else res.writeHead(502, { "Content-Type": "text/plain" }).end(`conformance proxy: ${error.message}\n`);
  });
  req.pipe(upstream);
});

server.listen(Number(process.env.PROXY_PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP address");
  own = `http://127.0.0.1:${address.port}`;
  console.log(own);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
