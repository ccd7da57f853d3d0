import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrape } from "@/lib/testing/prometheus";
import { countRefusal, disableMetrics, enableMetrics } from "./metrics";
import { type MetricsServer, startMetricsServer } from "./server";

let server: MetricsServer;
let base: string;

beforeAll(async () => {
  disableMetrics();
  const metrics = enableMetrics();
  server = await startMetricsServer(metrics, 0, "127.0.0.1");
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server.close();
  disableMetrics();
});

describe("the metrics port", () => {
  it("answers GET /metrics in Prometheus's text format 0.0.4", async () => {
    countRefusal("invalid_token");
    const answer = await scrape(`${base}/metrics`);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(answer.scraped.value("api_refusals_total", { error: "invalid_token" })).toBe(1);
    expect(answer.scraped.families.get("process_cpu_seconds_total")?.type).toBe("COUNTER");
    expect(answer.text.endsWith("\n")).toBe(true);
  });

  it("answers anything else with SPEC.md's JSON error body", async () => {
    const other = await fetch(`${base}/api/health`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: "not_found", statusCode: 404, traceId: expect.any(String) });
    const post = await fetch(`${base}/metrics`, { method: "POST", body: "x" });
    expect(post.status).toBe(400);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(await post.json()).toMatchObject({ error: "invalid_request", statusCode: 400 });
  });

  it("fails to start, rather than serve nothing, when its port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    const address = taken.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await expect(startMetricsServer(enableMetrics(), port, "127.0.0.1")).rejects.toThrow(/EADDRINUSE/);
    await new Promise((done) => taken.close(done));
  });
});
