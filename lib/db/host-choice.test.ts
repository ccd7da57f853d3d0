import pg from "pg";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "@/lib/log-database-error";
import { chosenHostUrl, hostChooser, NoWritableHostError, pgClient, pgConfig } from "./host-choice";

/**
 * The host chosen at connect for a multi-host DATABASE_URL (./host-choice.ts). Ports 1 and 2 of
 * 127.0.0.1 refuse at once (nothing listens there); the PostgreSQL of TEST_DATABASE_URL is the host
 * that works. The promoted-standby case is lib/db/failover.test.ts.
 */
const server = process.env.TEST_DATABASE_URL;
const serverHost = server ? new URL(server) : undefined;
const unique = () => Math.random().toString(36).slice(2, 8);

describe("a DATABASE_URL of one host", () => {
  it("reaches node-pg as it is, with no chooser", () => {
    const url = "postgresql://postgres@127.0.0.1:5432/postgres";
    expect(hostChooser(url)).toBeUndefined();
    expect(pgConfig(url, { max: 3 })).toEqual({ max: 3, connectionString: url });
  });
});

describe("no host takes connections", () => {
  it("fails at once with a connection-class error the API answers 503 (not a hang, not node-pg's Invalid URL)", async () => {
    const url = `postgresql://postgres@127.0.0.1:1,127.0.0.1:2/postgres?target_session_attrs=read-write&application_name=${unique()}`;
    const pool = new pg.Pool({ ...pgConfig(url, { max: 2 }), allowExitOnIdle: true });
    const started = performance.now();
    const error = await pool.query("SELECT 1").catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(NoWritableHostError);
    expect((error as NoWritableHostError).code).toBe("08001");
    expect((error as Error).message).toMatch(/127\.0\.0\.1:1 did not connect \(ECONNREFUSED\); 127\.0\.0\.1:2 did not/);
    expect(isDatabaseUnavailable(error)).toBe(true);
    await pool.end();
  });
});

describe.skipIf(!serverHost)("a host list on PostgreSQL (TEST_DATABASE_URL)", () => {
  const live = `${serverHost?.hostname}:${serverHost?.port || 5432}`;
  const listUrl = (query: string) =>
    `postgresql://postgres@127.0.0.1:1,${live}${serverHost?.pathname}?application_name=${unique()}${query}`;

  it("skips a host that refuses and keeps the first that takes writes, for every pool and client of the URL", async () => {
    const url = listUrl("&target_session_attrs=read-write");
    const pool = new pg.Pool(pgConfig(url, { max: 2, allowExitOnIdle: true }));
    const result = await pool.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
    expect(result.rows[0]?.transaction_read_only).toBe("off");
    const chooser = hostChooser(url);
    expect(chooser?.current).toEqual({ host: serverHost?.hostname, port: Number(serverHost?.port || 5432) });
    // A session of its own (LISTEN) goes to the same host.
    const client = pgClient(url, { application_name: "host-choice-test" });
    await client.connect();
    await client.query("LISTEN host_choice_test");
    await client.end();
    // A tool that takes one URL gets the chosen host's.
    const single = await chosenHostUrl(url);
    expect(single.startsWith(`postgresql://postgres@${live}/`)).toBe(true);
    expect(single).not.toMatch(/target_session_attrs|,/);
    await pool.end();
  });

  it("refuses a host whose sessions are read-only, as a standby's are", async () => {
    // default_transaction_read_only makes the session read-only as recovery does.
    const url = listUrl("&target_session_attrs=read-write&options=-c%20default_transaction_read_only%3Don");
    const pool = new pg.Pool(pgConfig(url, { max: 1, allowExitOnIdle: true }));
    const error = await pool.query("SELECT 1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoWritableHostError);
    expect((error as Error).message).toMatch(new RegExp(`${live.replace(/\./g, "\\.")} is read-only`));
    await pool.end();
  });

  it("with target_session_attrs=any (or none) takes the first host that connects, read-only or not", async () => {
    const url = listUrl("&options=-c%20default_transaction_read_only%3Don");
    const pool = new pg.Pool(pgConfig(url, { max: 1, allowExitOnIdle: true }));
    const result = await pool.query<{ transaction_read_only: string }>("SHOW transaction_read_only");
    expect(result.rows[0]?.transaction_read_only).toBe("on");
    await pool.end();
  });

  it("refuses a new connection to the chosen host once it turned read-only (a primary demoted), and forgets it", async () => {
    const name = `host_choice_${unique()}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const url = `postgresql://postgres@127.0.0.1:1,${live}/${name}?target_session_attrs=read-write&application_name=${unique()}`;
      const pool = new pg.Pool(pgConfig(url, { max: 5, allowExitOnIdle: true }));
      // As the app's pool does (lib/db/adapter.ts): pool.end() resolves before its connections have
      // closed, and the DROP … WITH (FORCE) below may terminate one still closing.
      pool.on("error", () => {});
      await pool.query("SELECT 1");
      const chooser = hostChooser(url);
      expect(chooser?.current?.port).toBe(Number(serverHost?.port || 5432));
      // New sessions of that database are read-only from now on, as on a demoted primary.
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
      const held = await pool.connect(); // the idle connection, from before
      const error = await pool.connect().catch((e: unknown) => e); // a new one
      held.release();
      expect(error).toBeInstanceOf(NoWritableHostError);
      expect((error as Error).message).toMatch(/no longer takes writes/);
      expect(chooser?.current).toBeUndefined();
      await pool.end();
    } finally {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("forgets a host that fails, and probes the list again on the next connection", async () => {
    const url = listUrl("&target_session_attrs=read-write");
    const chooser = hostChooser(url);
    const chosen = await chooser?.choose();
    expect(chosen?.port).toBe(Number(serverHost?.port || 5432));
    chooser?.forget(chosen as NonNullable<typeof chosen>);
    expect(chooser?.current).toBeUndefined();
    const pool = new pg.Pool(pgConfig(url, { max: 1, allowExitOnIdle: true }));
    await pool.query("SELECT 1");
    expect(chooser?.current).toEqual(chosen);
    await pool.end();
  });
});
