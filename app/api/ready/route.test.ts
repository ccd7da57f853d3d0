import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { openBeforeServing } from "@/lib/db/readiness";
import { apiClient } from "@/lib/testing/api-client";

const api = apiClient(apiRoutes);
const holder = globalThis as typeof globalThis & { __tokenServiceStopping?: boolean };
// As a starting server does (instrumentation.ts): the first probe must not pay for opening the
// database, which on a busy machine took PGlite longer than a probe waits.
beforeAll(async () => {
  await openBeforeServing({ timeoutMs: 60_000 });
}, 70_000);
afterEach(() => {
  holder.__tokenServiceStopping = undefined;
});

describe("GET /api/ready", () => {
  it("answers 200 on the migrated test database", async () => {
    const answer = await api.get("/api/ready");
    expect(answer.body).toEqual({ status: "ready" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 503 with Retry-After while the server shuts down", async () => {
    holder.__tokenServiceStopping = true;
    const answer = await api.get("/api/ready/");
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("5");
    expect(answer.body).toEqual({
      error: "server_error",
      error_description: "The server is shutting down.",
      statusCode: 503,
      traceId: answer.headers.get("x-trace-id"),
    });
  });

  it("serves GET only", async () => {
    const answer = await api.post("/api/ready");
    expect(answer.status).toBe(400);
    expect(answer.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});
