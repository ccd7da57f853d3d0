import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NoWritableHostError } from "@/lib/db/host-choice";
import { isDatabaseUnavailable } from "@/lib/log-database-error";
import { tokenErrorCode } from "@/lib/oauth/token-endpoint";
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailableError } from "./database-unavailable";
import { errorResponse } from "./handler";
import { toHttpError } from "./refusal-to-http";

/**
 * The errors a failover throws, as the failover test (lib/db/failover.test.ts) saw them, become
 * 503 temporarily_unavailable with Retry-After; every other error keeps its answer.
 */

/** A PostgreSQL error as node-pg gives it. */
const pgError = (code: string, severity = "ERROR") =>
  Object.assign(new Error("text that is never read"), { code, severity });
/** The same through Prisma's driver adapter, inside Prisma's error. */
const throughPrisma = (originalCode: string) =>
  Object.assign(new Error("Raw query failed."), {
    name: "PrismaClientKnownRequestError",
    code: "P2010",
    meta: {
      driverAdapterError: { name: "DriverAdapterError", cause: { kind: "postgres", originalCode, code: originalCode } },
    },
  });

const unavailable: [string, unknown][] = [
  ["no host of the list takes writes (host-choice)", new NoWritableHostError("No host of DATABASE_URL takes writes")],
  ["a query cut by the primary's stop (node-pg)", new Error("Connection terminated unexpectedly")],
  [
    "a client used after its connection died",
    new Error("Client has encountered a connection error and is not queryable"),
  ],
  ["the pool's connect timeout", new Error("timeout exceeded when trying to connect")],
  [
    "a refused connection through Prisma's adapter",
    Object.assign(new Error("DatabaseNotReachable"), {
      name: "DriverAdapterError",
      cause: { kind: "DatabaseNotReachable", host: "h1", port: 5432 },
    }),
  ],
  ["a closed connection through Prisma's adapter", { name: "DriverAdapterError", cause: { kind: "ConnectionClosed" } }],
  [
    "node's refused socket",
    Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED", syscall: "connect", errno: -111 }),
  ],
  ["admin shutdown (57P01)", pgError("57P01", "FATAL")],
  ["crash shutdown (57P02)", pgError("57P02", "FATAL")],
  ["starting up or shutting down (57P03)", pgError("57P03", "FATAL")],
  ["a write on a read-only host (25006)", pgError("25006")],
  ["a read-only host through Prisma", throughPrisma("25006")],
  ["admin shutdown through Prisma", throughPrisma("57P01")],
  ["a connection failure through Prisma", throughPrisma("08006")],
  ["a cause wrapped in another error", new Error("while issuing", { cause: pgError("57P01", "FATAL") })],
  [
    "Prisma's own unreachable code",
    Object.assign(new Error("x"), { name: "PrismaClientInitializationError", code: "P1001" }),
  ],
];

const other: [string, unknown][] = [
  ["a unique violation", pgError("23505")],
  ["a unique violation through Prisma", throughPrisma("23505")],
  ["a full disk", pgError("53100")],
  ["a syntax error", pgError("42601")],
  ["a serialization failure", pgError("40001")],
  ["a record not found", Object.assign(new Error("x"), { name: "PrismaClientKnownRequestError", code: "P2025" })],
  ["a defect", new TypeError("Cannot read properties of undefined")],
  ["an error whose text merely mentions a connection", new Error("Connection terminated? no: a defect said so")],
  ["a string", "Connection terminated unexpectedly"],
  ["nothing", undefined],
];

describe("isDatabaseUnavailable", () => {
  it.each(unavailable)("%s: yes", (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each(other)("%s: no", (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it("property: a connection exception (class 08), 57P01-57P03 and 25006 are unavailable; the other classes are not", () => {
    const digitOrLetter = fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".split(""));
    const rest = fc.tuple(digitOrLetter, digitOrLetter, digitOrLetter).map((chars) => chars.join(""));
    fc.assert(
      fc.property(rest, fc.boolean(), (tail, prisma) => {
        const wrap = prisma ? throughPrisma : pgError;
        expect(isDatabaseUnavailable(wrap(`08${tail}`))).toBe(true);
        for (const cls of ["22", "23", "40", "42", "53", "XX"])
          expect(isDatabaseUnavailable(wrap(`${cls}${tail}`))).toBe(false);
        const state = `57${tail}`;
        expect(isDatabaseUnavailable(wrap(state))).toBe(["57P01", "57P02", "57P03"].includes(state));
      }),
      { numRuns: 200 },
    );
  });
});

describe("the answer", () => {
  it("is SPEC.md's error body with 503, temporarily_unavailable and Retry-After, and says nothing of the cause", async () => {
    const response = errorResponse(new Error("Connection terminated unexpectedly"), "a-trace-id");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
    const body = await response.json();
    expect(body).toEqual({
      error: "temporarily_unavailable",
      error_description:
        "The service cannot reach its database for a moment (a failover or a restart). Retry after 1 second.",
      statusCode: 503,
      traceId: "a-trace-id",
    });
    expect(JSON.stringify(body)).not.toMatch(/terminated|127\.0\.0\.1|5432|SQLSTATE/);
  });

  it("is counted as temporarily_unavailable by the token endpoint's metrics, not server_error", () => {
    expect(tokenErrorCode(pgError("57P01", "FATAL"))).toBe("temporarily_unavailable");
    expect(tokenErrorCode(new TypeError("x"))).toBe("server_error");
  });

  it("leaves every other error to its own answer (a defect stays 500 server_error)", async () => {
    expect(databaseUnavailableError(pgError("23505"))).toBeUndefined();
    expect(toHttpError(pgError("23505"))).toEqual(pgError("23505"));
    const response = errorResponse(new TypeError("x"), "t");
    expect(response.status).toBe(500);
    expect(response.headers.get("retry-after")).toBeNull();
    expect((await response.json()).error).toBe("server_error");
  });
});
