/**
 * The cause of a database error as an operator reads it in the log: whether the database is
 * unreachable or its disk is full, else the Prisma code and the PostgreSQL SQLSTATE with a short
 * class. Only codes are read, never a message: Prisma's and PostgreSQL's messages may carry SQL,
 * the values of a row or a query's parameters (SPEC.md: no SQL, no secrets in any log line).
 *
 * Read by shape, not by class: a Prisma error (`PrismaClientKnownRequestError` and its siblings),
 * a driver adapter's `DriverAdapterError` (also as a Prisma error's `meta.driverAdapterError`), a
 * `pg` error with a SQLSTATE, or a node file-system error of the embedded database.
 */

/** Prisma's codes an operator meets (https://www.prisma.io/docs/orm/reference/error-reference). */
const prismaCodes: Record<string, string> = {
  P1000: "authentication failed",
  P1001: "cannot reach the database server",
  P1002: "the database server timed out",
  P1003: "the database does not exist",
  P1008: "the operation timed out",
  P1010: "access denied",
  P1017: "the server closed the connection",
  P2002: "unique constraint failed",
  P2003: "foreign key constraint failed",
  P2010: "raw query failed",
  P2024: "timed out waiting for a connection from the pool",
  P2025: "a required record was not found",
  P2028: "transaction API error",
  P2034: "write conflict or deadlock",
  P2037: "too many database connections",
};

/** The first two characters of a SQLSTATE (PostgreSQL, Appendix A). */
const sqlStateClasses: Record<string, string> = {
  "08": "connection exception",
  "22": "data exception",
  "23": "integrity constraint violation",
  "25": "invalid transaction state",
  "28": "invalid authorization",
  "3D": "invalid database name",
  "40": "transaction rollback",
  "42": "syntax error or access rule violation",
  "53": "insufficient resources",
  "54": "program limit exceeded",
  "55": "object not in prerequisite state",
  "57": "operator intervention",
  "58": "system error",
  XX: "internal error",
};

const unreachableKinds = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout"]);
const unreachablePrismaCodes = new Set(["P1001", "P1002", "P1017"]);
const unreachableErrnos = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "EPIPE"]);

interface Codes {
  /** Prisma's P-code. */
  prisma?: string;
  /** The driver adapter's error kind (`DatabaseNotReachable`, `postgres`, `UniqueConstraintViolation`…). */
  kind?: string;
  /** PostgreSQL's SQLSTATE. */
  sqlState?: string;
  /** A node system error code (ECONNREFUSED, ENOSPC…). */
  errno?: string;
  /** The message says the device is full (the text itself is not kept). */
  noSpace?: boolean;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function codesOf(error: Record<string, unknown>): Codes | undefined {
  const name = text(error.name) ?? "";
  const code = text(error.code);
  const codes: Codes = {};
  if (name.startsWith("PrismaClient") && code && /^P\d{4}$/.test(code)) codes.prisma = code;
  const adapterError =
    name === "DriverAdapterError" ? error : (record(record(error.meta)?.driverAdapterError) ?? record(error.cause));
  const cause = record(adapterError?.cause);
  if (cause) {
    codes.kind = text(cause.kind);
    codes.sqlState = text(cause.originalCode) ?? text(cause.code);
  }
  // A pg error (the LISTEN connection, migrations): a SQLSTATE in `code`, or a node errno.
  if (!codes.prisma && !codes.kind && code) {
    if (/^[0-9A-Z]{5}$/.test(code) && typeof error.severity === "string") codes.sqlState = code;
    else if (/^E[A-Z]+$/.test(code)) codes.errno = code;
  }
  const message = text(error.message) ?? "";
  if (/No space left on device|ENOSPC/.test(message) || codes.errno === "ENOSPC") codes.noSpace = true;
  const databaseLike =
    name.startsWith("PrismaClient") ||
    name === "DriverAdapterError" ||
    codes.kind !== undefined ||
    codes.sqlState !== undefined ||
    codes.noSpace === true;
  return databaseLike ? codes : undefined;
}

function codeList(codes: Codes): string {
  const parts: string[] = [];
  if (codes.prisma) parts.push(`Prisma ${codes.prisma}`);
  if (codes.sqlState) parts.push(`SQLSTATE ${codes.sqlState}`);
  else if (codes.kind && codes.kind !== "postgres") parts.push(codes.kind);
  if (codes.errno) parts.push(codes.errno);
  return parts.join(", ");
}

function unreachable(codes: Codes): boolean {
  const sqlState = codes.sqlState ?? "";
  return (
    unreachablePrismaCodes.has(codes.prisma ?? "") ||
    unreachableKinds.has(codes.kind ?? "") ||
    unreachableErrnos.has(codes.errno ?? "") ||
    sqlState.startsWith("08") ||
    shutdownStates.has(sqlState)
  );
}

/** admin_shutdown, crash_shutdown, cannot_connect_now (starting up, shutting down, in recovery). */
const shutdownStates = new Set(["57P01", "57P02", "57P03"]);

/**
 * node-pg's own errors for a connection that ended or never came, which carry no code (the text
 * is only matched, never logged): a query cut by the server's stop, a client used after that.
 */
const droppedConnection =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|timeout exceeded when trying to connect)$/;

/**
 * Whether `error` (or its cause) says the database cannot be used at this moment and may be in a
 * second: unreachable, dropped, shutting down or starting up, or the host turned read-only
 * (SQLSTATE 25006: a primary demoted, a write that reached a standby). A failover looks like this
 * until the standby is promoted; the HTTP API answers it with 503 and Retry-After, not 500
 * (lib/api/database-unavailable.ts). A disk that is full, a constraint, a syntax error: no.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  const fields = record(error);
  if (!fields || depth > 3) return false;
  const codes = codesOf(fields);
  if (codes && !codes.noSpace && (unreachable(codes) || codes.sqlState === "25006")) return true;
  const coded = codes && (codes.prisma || codes.kind || codes.sqlState || codes.errno);
  if (!coded && droppedConnection.test(text(fields.message) ?? "")) return true;
  // A socket's own error (node-pg connecting past Prisma): `connect ECONNREFUSED …`.
  if (!codes && typeof fields.syscall === "string" && unreachableErrnos.has(text(fields.code) ?? "")) return true;
  return isDatabaseUnavailable(fields.cause, depth + 1);
}

/** A sentence naming the cause of a database error, or undefined when `error` is no database error. */
export function describeDatabaseError(error: unknown): string | undefined {
  const fields = record(error);
  if (!fields) return undefined;
  const codes = codesOf(fields);
  if (!codes) return undefined;
  const list = codeList(codes);
  const suffix = list ? ` (${list})` : "";
  const sqlState = codes.sqlState ?? "";
  if (sqlState === "53100" || codes.noSpace) {
    return `database disk full: the database could not write, its disk has no space left${suffix}`;
  }
  if (unreachable(codes)) {
    return `database unreachable: the database server refused, dropped or did not answer the connection${suffix}`;
  }
  const prismaClass = codes.prisma ? prismaCodes[codes.prisma] : undefined;
  const stateClass = sqlState ? sqlStateClasses[sqlState.slice(0, 2)] : undefined;
  const what = [prismaClass, stateClass ?? (codes.kind && codes.kind !== "postgres" ? codes.kind : undefined)]
    .filter((part) => part !== undefined)
    .join(": ");
  return `database error: ${what || (text(fields.name) ?? "unknown")}${suffix}`;
}
