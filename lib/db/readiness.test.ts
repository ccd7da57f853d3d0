import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { db } from "./client";
import { migrationNames } from "./migration-names";
import { openBeforeServing, readiness } from "./readiness";

const holder = globalThis as typeof globalThis & { __tokenServiceStopping?: boolean };
afterEach(() => {
  holder.__tokenServiceStopping = undefined;
});

/** A refused connection, as the driver adapter reports it. */
const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
  name: "DriverAdapterError",
  cause: { kind: "DatabaseNotReachable", host: "127.0.0.1" },
});

const shipped = ["20250101000000_init", "20250201000000_more", "20250301000000_latest"];

describe("readiness", () => {
  it("is ready when every migration shipped is applied (more applied is fine: a newer instance migrated)", async () => {
    const applied = async () => [...shipped, "20250401000000_newer"];
    expect(await readiness({ expected: shipped, applied })).toEqual({ ready: true });
  });

  it("names the migrations not applied", async () => {
    const state = await readiness({ expected: shipped, applied: async () => shipped.slice(0, 1) });
    expect(state).toEqual({
      ready: false,
      reason:
        "2 migrations are not applied: 20250201000000_more, 20250301000000_latest. Run npm run db:deploy (npm start applies them).",
    });
  });

  it("is not ready when the database fails or does not answer in time, and says which", async () => {
    const failed = await readiness({ expected: shipped, applied: () => Promise.reject(refused) });
    expect(failed.ready).toBe(false);
    expect(failed.ready === false && failed.reason).toMatch(
      /^The database did not answer the readiness check \(database unreachable/,
    );
    expect(failed.ready === false && failed.reason).not.toContain("127.0.0.1");
    const started = Date.now();
    const hung = await readiness({ expected: shipped, applied: () => new Promise(() => {}), timeoutMs: 100 });
    expect(hung).toEqual({ ready: false, reason: "The database did not answer within 0.1 seconds." });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("is not ready once the server is shutting down", async () => {
    holder.__tokenServiceStopping = true;
    expect(await readiness({ expected: shipped, applied: async () => shipped })).toEqual({
      ready: false,
      reason: "The server is shutting down.",
    });
  });

  it("reads the test database, migrated (the unit tests' PGlite records its migrations as deploy does)", async () => {
    // What is read, not how fast: the file's first statement opens PGlite, which on a busy machine
    // takes longer than the probe's 2 s (the timeout has its own test above).
    expect(await readiness({ timeoutMs: 30_000 })).toEqual({ ready: true });
    expect(migrationNames().length).toBeGreaterThan(10);
  });

  it("says so when the database has no migration table at all", async () => {
    const none = async () => {
      await db().$queryRaw`SELECT migration_name FROM "_no_such_migrations"`;
      return [];
    };
    expect(await readiness({ expected: shipped, applied: none })).toEqual({
      ready: false,
      reason: "No migration has been applied to the database: run npm run db:deploy.",
    });
  });
});

describe("openBeforeServing", () => {
  const logged = () => [vi.spyOn(log, "info"), vi.spyOn(log, "warn")] as const;
  afterEach(() => vi.restoreAllMocks());

  it("opens the test database and says the server is ready", async () => {
    const [info, warn] = logged();
    expect(await openBeforeServing({ timeoutMs: 30_000 })).toEqual({ ready: true });
    expect(info).toHaveBeenCalledWith("database open and migrated; the server is ready");
    expect(warn).not.toHaveBeenCalled();
  });

  it("never throws nor holds the start past its bound: a database down or hung is logged with the reason", async () => {
    const [info, warn] = logged();
    const down = await openBeforeServing({ applied: () => Promise.reject(refused) });
    expect(down.ready).toBe(false);
    const started = Date.now();
    const hung = await openBeforeServing({ applied: () => new Promise(() => {}), timeoutMs: 100 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(hung).toEqual({ ready: false, reason: "The database did not answer within 0.1 seconds." });
    expect(info).not.toHaveBeenCalled();
    expect(warn.mock.calls.map(([message, fields]) => [message, (fields as { reason: string }).reason])).toEqual([
      ["the server starts not ready", expect.stringMatching(/^The database did not answer the readiness check/)],
      ["the server starts not ready", "The database did not answer within 0.1 seconds."],
    ]);
  });
});
