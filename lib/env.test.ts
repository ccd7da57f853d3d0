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
});
