import { describe, expect, it } from "vitest";
import { EnvError, parseEnv, resetEnvCache } from "@/lib/env";
import { openDatabase } from "./adapter";
import { poolerUrls, stripPgbouncer } from "./pooler-url";

describe("the pgbouncer flag of DATABASE_URL", () => {
  it("is taken out of the URL node-pg gets, other parameters kept as written", () => {
    expect(stripPgbouncer("postgresql://u@pooler:6543/db?pgbouncer=true")).toEqual({
      url: "postgresql://u@pooler:6543/db",
      pgbouncer: true,
    });
    expect(stripPgbouncer("postgresql://u@p/db?sslmode=require&pgbouncer=true&application_name=a%20b")).toEqual({
      url: "postgresql://u@p/db?sslmode=require&application_name=a%20b",
      pgbouncer: true,
    });
    expect(stripPgbouncer("postgresql://u@p/db?pgbouncer=false&connect_timeout=5")).toEqual({
      url: "postgresql://u@p/db?connect_timeout=5",
      pgbouncer: false,
    });
    expect(stripPgbouncer("postgresql://u@p/db?pgbouncer=1")).toMatchObject({ pgbouncer: true });
    expect(stripPgbouncer("postgresql://u@p/db?pgbouncer=TRUE")).toMatchObject({ pgbouncer: true });
    expect(stripPgbouncer("postgresql://u@p/db")).toEqual({ url: "postgresql://u@p/db" });
    expect(stripPgbouncer("postgresql://u@p/db?sslmode=require")).toEqual({
      url: "postgresql://u@p/db?sslmode=require",
    });
  });

  it("leaves a multi-host URL's host part alone (parsed elsewhere)", () => {
    const url = "postgresql://u:p%40ss@h1:5432,h2:5433/db?target_session_attrs=read-write&pgbouncer=true";
    expect(stripPgbouncer(url)).toEqual({
      url: "postgresql://u:p%40ss@h1:5432,h2:5433/db?target_session_attrs=read-write",
      pgbouncer: true,
    });
  });

  it("refuses a value that is neither true nor false, naming the variable", () => {
    expect(() => stripPgbouncer("postgresql://u@p/db?pgbouncer=maybe")).toThrow(EnvError);
    expect(() => stripPgbouncer("postgresql://u@p/db?pgbouncer=maybe")).toThrow(
      /^The environment variable DATABASE_URL has pgbouncer=maybe/,
    );
  });
});

describe("poolerUrls", () => {
  const direct = "postgresql://u@db-host:5432/db";

  it("without the flag: one URL for everything, DATABASE_DIRECT_URL ignored", () => {
    expect(poolerUrls("postgresql://u@h/db")).toEqual({
      url: "postgresql://u@h/db",
      pooled: false,
      sessionUrl: "postgresql://u@h/db",
    });
    expect(poolerUrls("postgresql://u@h/db?pgbouncer=false", direct)).toEqual({
      url: "postgresql://u@h/db",
      pooled: false,
      sessionUrl: "postgresql://u@h/db",
    });
  });

  it("with pgbouncer=true: pooled, and the session work goes to DATABASE_DIRECT_URL", () => {
    expect(poolerUrls("postgresql://u@pooler:6543/db?pgbouncer=true", direct)).toEqual({
      url: "postgresql://u@pooler:6543/db",
      pooled: true,
      sessionUrl: direct,
    });
  });

  it("with pgbouncer=true and no DATABASE_DIRECT_URL, stops the start with a sentence naming it", () => {
    expect(() => poolerUrls("postgresql://u@pooler:6543/db?pgbouncer=true")).toThrow(
      /^The environment variable DATABASE_DIRECT_URL is not set, and DATABASE_URL has pgbouncer=true/,
    );
  });

  it("refuses a DATABASE_DIRECT_URL that is itself the pooler's", () => {
    expect(() =>
      poolerUrls("postgresql://u@pooler/db?pgbouncer=true", "postgresql://u@pooler/db?pgbouncer=true"),
    ).toThrow(/^The environment variable DATABASE_DIRECT_URL has pgbouncer=true/);
  });

  it("DATABASE_DIRECT_URL is declared in the environment: PostgreSQL URLs only", () => {
    expect(parseEnv({ DATABASE_DIRECT_URL: direct }).DATABASE_DIRECT_URL).toBe(direct);
    expect(() => parseEnv({ DATABASE_DIRECT_URL: "file:./data" })).toThrow(
      /^The environment variable DATABASE_DIRECT_URL /,
    );
  });

  it("the start stops there: opening a pooled DATABASE_URL without DATABASE_DIRECT_URL throws before any connection", () => {
    const saved = process.env.DATABASE_DIRECT_URL;
    delete process.env.DATABASE_DIRECT_URL;
    resetEnvCache();
    try {
      expect(() => openDatabase("postgresql://u@127.0.0.1:1/db?pgbouncer=true")).toThrow(EnvError);
      const handle = openDatabase("postgresql://u@127.0.0.1:1/db?pgbouncer=true", direct);
      expect({ pooled: handle.pooled, sessionUrl: handle.sessionUrl, counters: handle.countersPool }).toEqual({
        pooled: true,
        sessionUrl: direct,
        counters: undefined,
      });
      void handle.close();
    } finally {
      if (saved !== undefined) process.env.DATABASE_DIRECT_URL = saved;
      resetEnvCache();
    }
  });
});
