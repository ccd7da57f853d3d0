import { randomUUID } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describeError, log } from "@/lib/log";
import type { ServiceMetrics } from "./metrics";

/**
 * `GET /metrics` in Prometheus's text format (0.0.4), on a port of its own (METRICS_PORT, bound to
 * METRICS_HOST, 127.0.0.1 by default): never on the public port, where /metrics is the app's JSON
 * 404. Anything else here gets SPEC.md's JSON error body.
 */
export interface MetricsServer {
  /** The port it listens on (METRICS_PORT, or the one chosen for 0). */
  port: number;
  close(): Promise<void>;
}

function refuse(response: ServerResponse, status: 404 | 400 | 500, error: string, description: string): void {
  const traceId = randomUUID();
  const body = JSON.stringify({ error, error_description: description, statusCode: status, traceId });
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-trace-id": traceId,
    ...(status === 400 ? { allow: "GET, HEAD" } : {}),
  });
  response.end(body);
}

/** Listens on `host`:`port`; rejects when it cannot (the port is taken), so the start fails loudly. */
export function startMetricsServer(metrics: ServiceMetrics, port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/metrics" && path !== "/metrics/") {
      refuse(response, 404, "not_found", "Only /metrics is served on this port.");
      return;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      refuse(response, 400, "invalid_request", `${request.method} is not served here. Use GET.`);
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        response.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        log.error("metrics: the scrape failed", { error: describeError(error) });
        refuse(response, 500, "server_error", "The metrics could not be gathered; the server log says why.");
      },
    );
  });
  // Prometheus scrapes every few seconds over a kept-alive connection; nothing here is slow.
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      server.unref(); // the metrics never keep a stopping process alive
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
