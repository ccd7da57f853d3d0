import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "@/lib/env";

const startDispatcher = vi.fn();
vi.mock("@/lib/webhooks/dispatcher", () => ({ startDispatcher }));
const startPruner = vi.fn();
vi.mock("@/lib/maintenance/prune", () => ({ startPruner }));

// Whether the direct routes were registered when the database was opened (see the last test).
const routesWhenOpened: unknown[] = [];
const openBeforeServing = vi.fn(async () => {
  routesWhenOpened.push((globalThis as { __tokenServiceDirectRouter?: unknown }).__tokenServiceDirectRouter);
  return { ready: true as const };
});
vi.mock("@/lib/db/readiness", () => ({ openBeforeServing }));

const { register } = await import("@/instrumentation");

describe("instrumentation register()", () => {
  const saved = { ...process.env };
  beforeEach(() => {
    startDispatcher.mockClear();
    startPruner.mockClear();
  });
  afterEach(() => {
    for (const key of ["NEXT_RUNTIME", "NEXT_PHASE", "WEBHOOK_DISPATCHER", "PRUNE_INTERVAL_SECONDS"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    resetEnvCache();
  });

  it.each([
    [{ NEXT_RUNTIME: "nodejs" }, { dispatcher: true, pruner: true }],
    [
      { NEXT_RUNTIME: "nodejs", WEBHOOK_DISPATCHER: "on" },
      { dispatcher: true, pruner: true },
    ],
    [
      { NEXT_RUNTIME: "nodejs", WEBHOOK_DISPATCHER: "off" },
      { dispatcher: false, pruner: true },
    ],
    [
      { NEXT_RUNTIME: "nodejs", PRUNE_INTERVAL_SECONDS: "0" },
      { dispatcher: true, pruner: false },
    ],
    [{ NEXT_RUNTIME: "edge" }, { dispatcher: false, pruner: false }],
    [
      { NEXT_RUNTIME: "nodejs", NEXT_PHASE: "phase-production-build" },
      { dispatcher: false, pruner: false },
    ],
  ])("with %o starts %o", async (vars, starts) => {
    Object.assign(process.env, vars);
    resetEnvCache();
    await register();
    expect(startDispatcher).toHaveBeenCalledTimes(starts.dispatcher ? 1 : 0);
    expect(startPruner).toHaveBeenCalledTimes(starts.pruner ? 1 : 0);
  });

  it("registers the notice of a disabled webhook endpoint (webhooks may not import reminders)", async () => {
    const holder = globalThis as { __endpointDisabledNotifier?: unknown };
    holder.__endpointDisabledNotifier = undefined;
    Object.assign(process.env, { NEXT_RUNTIME: "nodejs", WEBHOOK_DISPATCHER: "off" });
    resetEnvCache();
    await register();
    expect(typeof holder.__endpointDisabledNotifier).toBe("function");
    holder.__endpointDisabledNotifier = undefined;
  });

  it("opens the database before the routes are handed to the server, so the first request finds it open", async () => {
    const holder = globalThis as { __tokenServiceDirectRouter?: unknown };
    holder.__tokenServiceDirectRouter = undefined;
    openBeforeServing.mockClear();
    routesWhenOpened.length = 0;
    Object.assign(process.env, { NEXT_RUNTIME: "nodejs", WEBHOOK_DISPATCHER: "off", PRUNE_INTERVAL_SECONDS: "0" });
    resetEnvCache();
    await register();
    expect(openBeforeServing).toHaveBeenCalledTimes(1);
    expect(routesWhenOpened).toEqual([undefined]);
    expect(typeof holder.__tokenServiceDirectRouter).toBe("function");
  });
});
