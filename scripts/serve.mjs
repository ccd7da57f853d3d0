// The production server that scripts/start.ts runs: Next.js (the same request handler as
// `next start`) behind node:http, so the app can learn the connection's peer address.
//
// Next.js fills X-Forwarded-For from the socket only when the client sent none (base-server.js:
// `??=`), so a client can claim any address there. Here any client-sent copy of the private
// header x-peer-address is dropped and the header is set from the socket; lib/client-address.ts
// reads it (and X-Forwarded-For only for TRUSTED_PROXY_HOPS proxies). Plain JavaScript: it runs
// without tsx, as `next start` would.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

const peerAddressHeader = "x-peer-address"; // lib/client-address.ts

process.env.NODE_ENV = "production";
const port = Number(process.env.PORT || 3000);
process.env.__NEXT_PRIVATE_ORIGIN ??= `http://localhost:${port}`; // as `next start` sets it

// The platform's Date, before Next.js wraps it to watch prerenders read the clock: the API's hot
// paths read the time through it (lib/clock/now.ts).
globalThis.__tokenServicePlatformDate = Date;
const { default: next } = await import("next");
const app = next({ dev: false, dir: process.cwd(), hostname: "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();
// In production Next.js prepares its server, and so runs instrumentation.ts, on the first request:
// that request and the first probe of /api/ready waited for the database to open (PGlite's thread
// starting, on the embedded database) and found the API's direct routes not yet registered. Done
// here before listening. `server.getServer()` is Next.js's own (not a public API): without it, the
// first request prepares as before.
const nextServer = await /** @type {{ server?: { getServer?: () => Promise<{ prepare(): Promise<void> }> } }} */ (
  app
).server?.getServer?.();
await nextServer?.prepare();

// A request (headers and body) not received within REQUEST_TIMEOUT_SECONDS is dropped, so a client
// that sends its body slowly or not at all holds the connection for seconds, not Node's 5 minutes.
const requestTimeout = 1000 * Number(process.env.REQUEST_TIMEOUT_SECONDS || 20);
const server = createServer(
  {
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 10_000),
    // How often the timeouts are checked (Node's default, 30 s, would let a 2 s timeout run 30).
    connectionsCheckingInterval: Math.min(1000, requestTimeout / 4),
  },
  (request, response) => {
    // Arrived on a kept-alive connection while stopping: answered, then the connection closes.
    if (globalThis.__tokenServiceStopping) response.shouldKeepAlive = false;
    request.headers[peerAddressHeader] = request.socket.remoteAddress ?? "";
    // With an OTLP endpoint set, instrumentation.ts put the tracing here (lib/telemetry/tracing.ts):
    // the request is served inside its server span, continuing the client's traceparent.
    const tracing = globalThis.__tokenServiceTracing;
    if (tracing === undefined) serve(request, response);
    else tracing.serve(request, response, () => serve(request, response));
  },
);

/**
 * @param {import("node:http").IncomingMessage} request
 * @param {import("node:http").ServerResponse} response
 */
function serve(request, response) {
  // The HTTP API's handlers, registered by instrumentation.ts when Next.js runs it
  // (lib/api/direct-router.ts says why they skip Next.js's router); until then Next.js serves them.
  if (globalThis.__tokenServiceDirectRouter?.(request, response)) return;
  handle(request, response).catch(() => {
    if (!response.headersSent) response.statusCode = 500;
    response.end();
  });
}

/**
 * SPEC.md's 400 invalid_request written straight to the socket, which is then closed: for what
 * never becomes a request that the router or Next.js could answer.
 * @param {import("node:stream").Duplex} socket
 * @param {string} description
 */
function refuseOnSocket(socket, description) {
  const traceId = randomUUID();
  const body = JSON.stringify({ error: "invalid_request", error_description: description, statusCode: 400, traceId });
  socket.end(
    [
      "HTTP/1.1 400 Bad Request",
      "content-type: application/json; charset=utf-8",
      `content-length: ${Buffer.byteLength(body)}`,
      "cache-control: no-store",
      `x-trace-id: ${traceId}`,
      `allow: ${everyMethod}`,
      "content-security-policy: frame-ancestors 'none'",
      "x-frame-options: DENY",
      "connection: close",
      "",
      body,
    ].join("\r\n"),
  );
  // A client that neither reads nor closes its end does not hold the connection.
  socket.setTimeout(5_000, () => socket.destroy());
}

const everyMethod = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

// What Node's HTTP parser refuses before there is a request (a method token it does not know, a
// malformed request line or header) and the timeouts above: SPEC.md's JSON error body instead of
// Node's bare `400 Bad Request`, unless an answer has begun on this connection already.
server.on("clientError", (error, socket) => {
  const code = /** @type {{ code?: string }} */ (error).code;
  const started = /** @type {{ _httpMessage?: { headersSent?: boolean } }} */ (socket)._httpMessage?.headersSent;
  if (code === "ECONNRESET" || !socket.writable || started) {
    socket.destroy();
    return;
  }
  // A connection that never sent a byte timed out: a browser opens spare ones ahead of need. It is
  // closed without a word, for a browser would show any answer on it as the next page.
  if (code === "ERR_HTTP_REQUEST_TIMEOUT" && socket.bytesRead === 0) {
    socket.destroy();
    return;
  }
  refuseOnSocket(
    socket,
    code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? `The request was not received within ${requestTimeout / 1000} seconds.`
      : "The request could not be read as HTTP/1.1: check the method, the request line and the headers.",
  );
});

// Node hands CONNECT and `Connection: Upgrade` requests (WebSocket, h2c) to these events, not to
// the request handler. Nothing here tunnels or upgrades: SPEC.md's JSON error body, as for any
// method nothing serves, never a connection closed without a byte. Node has taken its own error
// listener off the socket by then, so a reset would otherwise be an uncaught error.
for (const [event, description] of [
  ["connect", `CONNECT is not served here: this is not a proxy. Use ${everyMethod.replaceAll(", ", " or ")}.`],
  ["upgrade", "This server does not upgrade connections (WebSocket, h2c): send the request without Upgrade."],
]) {
  server.on(event, (_request, /** @type {import("node:stream").Duplex} */ socket) => {
    socket.on("error", () => socket.destroy());
    refuseOnSocket(socket, description);
  });
}
// Every interface, as `next start` listens.
server.listen(port, () => console.log(`[serve] Next.js ready on port ${port}`));

// SIGTERM (or SIGINT): stop accepting, answer what is in flight, flush, and exit within 10 s, as
// an orchestrator's grace period expects. The flag is also what /api/ready reads (lib/db/readiness.ts).
const EXIT_WITHIN_MS = 10_000;
/** Requests in flight get this long; connections still busy then are cut. */
const DRAIN_MS = 7_000;
/** The last work (usage counts, the dispatcher, the database) ends by then, whatever it waits for. */
const BEFORE_EXIT_ENDS_MS = 8_500;
const stop = () => {
  if (globalThis.__tokenServiceStopping) return;
  globalThis.__tokenServiceStopping = true;
  const stoppedAt = Date.now();
  // Whatever hangs below, the process is gone before the grace period ends.
  setTimeout(() => process.exit(1), EXIT_WITHIN_MS - 500).unref();
  // A kept-alive connection is closed as soon as its answer is written: the drain ends when the
  // last answer does, not when clients let go (Node.js leaves busy ones open for their keep-alive).
  const closeIdle = setInterval(() => server.closeIdleConnections(), 50);
  const cut = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
  server.close(() => {
    clearInterval(closeIdle);
    clearTimeout(cut);
    const budget = Math.max(0, stoppedAt + BEFORE_EXIT_ENDS_MS - Date.now());
    const beforeExit = Promise.race([
      Promise.resolve(globalThis.__tokenServiceBeforeExit?.()).catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, budget).unref()),
    ]);
    beforeExit.finally(() => app.close().finally(() => process.exit(0)));
  });
  server.closeIdleConnections();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
