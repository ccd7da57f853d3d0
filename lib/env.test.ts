import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

describe("the environment", () => {
  it("has defaults that need no configuration", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      DATABASE_URL: "file:./data/pglite",
      PORT: 3000,
      RATE_LIMIT_BURST: 100,
      RATE_LIMIT_DAILY: 200000,
    });
    expect(env.WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(env.SIGNING_KEY_ROTATION_DAYS).toBe(90);
    expect(parseEnv({ SIGNING_KEY_ROTATION_DAYS: "0" }).SIGNING_KEY_ROTATION_DAYS).toBe(0);
  });

  it("treats empty values as unset and reads flags", () => {
    expect(parseEnv({ PORT: "", WEBHOOK_ALLOW_PRIVATE: "1", RATE_LIMIT_BURST: "0" })).toMatchObject({
      PORT: 3000,
      WEBHOOK_ALLOW_PRIVATE: true,
      RATE_LIMIT_BURST: 0,
    });
  });

  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ SERVER_SECRET: "short" }, "SERVER_SECRET"],
    [{ APP_URL: "not a url" }, "APP_URL"],
    [{ SEED_ADMIN_EMAIL: "nope" }, "SEED_ADMIN_EMAIL"],
    [{ RATE_LIMIT_DAILY: "-1" }, "RATE_LIMIT_DAILY"],
    [{ SIGNING_KEY_ROTATION_DAYS: "1.5" }, "SIGNING_KEY_ROTATION_DAYS"],
    [{ SIGNING_KEY_ROTATION_DAYS: "-1" }, "SIGNING_KEY_ROTATION_DAYS"],
    [{ SIGNING_KEY_ROTATION_DAYS: "soon" }, "SIGNING_KEY_ROTATION_DAYS"],
  ])("fails with a sentence naming the variable: %o", (source, name) => {
    expect(() => parseEnv(source)).toThrow(new RegExp(`^The environment variable ${name} `));
  });

  it.each([
    {
      title: "REFRESH_TOKEN_REUSE_SECONDS: 30 by default, 0 (strict) to 300, anything else named",
      name: "REFRESH_TOKEN_REUSE_SECONDS",
      fallback: 30,
      good: [0, 300],
      bad: ["301", "-1", "2.5", "soon"],
    },
    {
      title: "WEBHOOK_FIRST_RETRY_SECONDS: 30 by default, 1 to 30, anything else named",
      name: "WEBHOOK_FIRST_RETRY_SECONDS",
      fallback: 30,
      good: [1],
      bad: ["0", "31", "2.5", "soon"],
    },
    {
      title: "PRUNE_INTERVAL_SECONDS: 600 by default, 0 (off) or 10 to 86400, anything else named",
      name: "PRUNE_INTERVAL_SECONDS",
      fallback: 600,
      good: [0, 10, 86400],
      bad: ["5", "86401", "-1", "2.5", "hourly"],
    },
    {
      title: "REQUEST_TIMEOUT_SECONDS: 20 by default, 1 to 300, anything else named",
      name: "REQUEST_TIMEOUT_SECONDS",
      fallback: 20,
      good: [2],
      bad: ["0", "301", "1.5", "soon"],
    },
  ] as const)("$title", ({ name, fallback, good, bad }) => {
    expect(parseEnv({})[name]).toBe(fallback);
    for (const value of good) expect(parseEnv({ [name]: String(value) })[name]).toBe(value);
    for (const value of bad) {
      expect(() => parseEnv({ [name]: value })).toThrow(new RegExp(`^The environment variable ${name} must be`));
    }
  });

  it("reads METRICS_PORT (unset: no metrics) and METRICS_HOST (default loopback)", () => {
    expect(parseEnv({}).METRICS_PORT).toBeUndefined();
    expect(parseEnv({}).METRICS_HOST).toBe("127.0.0.1");
    expect(parseEnv({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: "0.0.0.0",
    });
    for (const bad of ["0", "65536", "9464.5", "metrics"]) {
      expect(() => parseEnv({ METRICS_PORT: bad })).toThrow(
        /^The environment variable METRICS_PORT must be a port number from 1 to 65535/,
      );
    }
  });

  it("reads TRUSTED_PROXY_HOPS (default 0) and OPERATOR_ALLOW_REMOTE (default off)", () => {
    expect(parseEnv({})).toMatchObject({ TRUSTED_PROXY_HOPS: 0, OPERATOR_ALLOW_REMOTE: false });
    expect(parseEnv({ TRUSTED_PROXY_HOPS: "2", OPERATOR_ALLOW_REMOTE: "1" })).toMatchObject({
      TRUSTED_PROXY_HOPS: 2,
      OPERATOR_ALLOW_REMOTE: true,
    });
    for (const bad of ["-1", "one", "1.5"])
      expect(() => parseEnv({ TRUSTED_PROXY_HOPS: bad })).toThrow(/^The environment variable TRUSTED_PROXY_HOPS /);
  });
});
