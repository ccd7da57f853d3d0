// The production server that scripts/start.ts runs: Next.js (the same request handler as
// `next start`) behind node:http, so the app can learn the connection's peer address.
//
// Next.js fills X-Forwarded-For from the socket only when the client sent none (base-server.js:
// `??=`), so a client can claim any address there. Here any client-sent copy of the private
// header x-peer-address is dropped and the header is set from the socket; lib/client-address.ts
// reads it (and X-Forwarded-For only for TRUSTED_PROXY_HOPS proxies). Plain JavaScript: it runs
// without tsx, as `next start` would.
import { createServer } from "node:http";

const peerAddressHeader = "x-peer-address"; // lib/client-address.ts

process.env.NODE_ENV = "production";
const port = Number(process.env.PORT || 3000);
process.env.__NEXT_PRIVATE_ORIGIN ??= `http://localhost:${port}`; // as `next start` sets it

const { default: next } = await import("next");
const app = next({ dev: false, dir: process.cwd(), hostname: "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((request, response) => {
  request.headers[peerAddressHeader] = request.socket.remoteAddress ?? "";
  // The HTTP API's handlers, registered by instrumentation.ts when Next.js runs it
  // (lib/api/direct-routes.ts says why they skip Next.js's router); until then Next.js serves them.
  if (globalThis.__tokenServiceDirectRoutes?.(request, response)) return;
  handle(request, response).catch(() => {
    if (!response.headersSent) response.statusCode = 500;
    response.end();
  });
});
// Every interface, as `next start` listens.
server.listen(port, () => console.log(`[serve] Next.js ready on port ${port}`));

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // Stop accepting, finish what is in flight, then let Next.js close (as `next start` does).
  // Then the last API usage counts are written (instrumentation.ts), within 5 seconds.
  server.close(() => {
    const beforeExit = Promise.race([
      Promise.resolve(globalThis.__tokenServiceBeforeExit?.()).catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
    ]);
    beforeExit.finally(() => app.close().finally(() => process.exit(0)));
  });
  server.closeIdleConnections();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
