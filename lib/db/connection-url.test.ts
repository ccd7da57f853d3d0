import fc from "fast-check";
import { parse } from "pg-connection-string";
import { describe, expect, it } from "vitest";
import {
  DatabaseUrlError,
  DEFAULT_CONNECT_TIMEOUT_SECONDS,
  hostList,
  parseDatabaseUrl,
  socketHost,
} from "./connection-url";

describe("parseDatabaseUrl", () => {
  it("splits libpq's host list, each host with its port or 5432", () => {
    const url = parseDatabaseUrl(
      "postgresql://app:s3cret@h1:6432,h2,[::1]:5433/tokens?target_session_attrs=read-write",
    );
    expect(url.hosts).toEqual([
      { host: "h1", port: 6432 },
      { host: "h2", port: 5432 },
      { host: "[::1]", port: 5433 },
    ]);
    expect(url.targetSessionAttrs).toBe("read-write");
    expect(url.choosesHost).toBe(true);
    expect(url.connectTimeoutSeconds).toBe(DEFAULT_CONNECT_TIMEOUT_SECONDS);
    expect(hostList(url.hosts)).toBe("h1:6432, h2:5432, [::1]:5433");
    // A socket connects to an IPv6 address without the URL's brackets.
    expect(url.hosts.map(socketHost)).toEqual(["h1", "h2", "::1"]);
  });

  it("gives node-pg one host per URL, keeps the user, password, database and other parameters, drops target_session_attrs", () => {
    const url = parseDatabaseUrl(
      "postgres://app:p%40ss@h1:6432,h2:6433/tokens?sslmode=disable&target_session_attrs=read-write&application_name=x#frag",
    );
    expect(url.forHost({ host: "h2", port: 6433 })).toBe(
      "postgres://app:p%40ss@h2:6433/tokens?sslmode=disable&application_name=x#frag",
    );
    const config = parse(url.forHost({ host: "h2", port: 6433 }));
    expect(config).toMatchObject({ user: "app", password: "p@ss", host: "h2", port: "6433", database: "tokens" });
  });

  it("leaves a single host without target_session_attrs to node-pg as it is", () => {
    expect(parseDatabaseUrl("postgresql://postgres@127.0.0.1:5432/postgres").choosesHost).toBe(false);
    expect(parseDatabaseUrl("postgresql://postgres@h1/db?target_session_attrs=any").choosesHost).toBe(false);
    // One host that must take writes: checked at connect too.
    expect(parseDatabaseUrl("postgresql://h1/db?target_session_attrs=read-write").choosesHost).toBe(true);
  });

  it("reads connect_timeout (seconds per host, as libpq) and keeps it in the URL", () => {
    const url = parseDatabaseUrl("postgresql://h1,h2/db?connect_timeout=7");
    expect(url.connectTimeoutSeconds).toBe(7);
    expect(url.targetSessionAttrs).toBe("any");
    expect(url.forHost({ host: "h1", port: 5432 })).toBe("postgresql://h1:5432/db?connect_timeout=7");
  });

  it.each([
    ["postgresql://h1,h2/db?target_session_attrs=read-only", /target_session_attrs=read-only.*read-write/],
    ["postgresql://h1,h2/db?target_session_attrs=standby", /target_session_attrs=standby/],
    ["postgresql://h1:0,h2/db", /port "0" for h1/],
    ["postgresql://h1:99999,h2/db", /port "99999"/],
    ["postgresql://h1:x,h2/db", /port "x"/],
    ["postgresql://h1,,h2/db", /empty host/],
    ["postgresql://h1,h2/db?connect_timeout=0", /connect_timeout=0/],
    ["mysql://h1,h2/db", /postgresql:\/\//],
  ])("refuses %s with a sentence naming DATABASE_URL", (text, message) => {
    expect(() => parseDatabaseUrl(text)).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl(text)).toThrow(message);
    expect(() => parseDatabaseUrl(text)).toThrow(/^The environment variable DATABASE_URL /);
  });

  const hostName = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}(\.[a-z][a-z0-9-]{0,10}){0,2}$/);
  const ipv6 = fc.ipV6().map((address) => `[${address}]`);
  const host = fc.record({
    host: fc.oneof(hostName, fc.ipV4(), ipv6),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
  });
  const parameter = fc.tuple(
    fc.constantFrom("sslmode", "application_name", "options", "connect_timeout", "target_session_attrs"),
    fc.constantFrom("disable", "read-write", "any", "x%20y", "5"),
  );

  it("property: every host comes back in order with its port, and each single-host URL is what node-pg reads", () => {
    fc.assert(
      fc.property(
        fc.array(host, { minLength: 1, maxLength: 5 }),
        fc.option(fc.constantFrom("app", "app:pw", "a%40b:p%2Fw"), { nil: undefined }),
        fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/),
        fc.array(parameter, { maxLength: 4 }),
        (hosts, userinfo, database, parameters) => {
          // What this module refuses is tested above; here only valid values.
          const valid = parameters.filter(
            ([key, value]) =>
              (key !== "target_session_attrs" || value === "any" || value === "read-write") &&
              (key !== "connect_timeout" || value === "5"),
          );
          const authority = hosts.map((h) => (h.port === undefined ? h.host : `${h.host}:${h.port}`)).join(",");
          const query = valid.map(([k, v]) => `${k}=${v}`).join("&");
          const text = `postgresql://${userinfo ? `${userinfo}@` : ""}${authority}/${database}${query ? `?${query}` : ""}`;
          const url = parseDatabaseUrl(text);
          expect(url.hosts).toEqual(hosts.map((h) => ({ host: h.host, port: h.port ?? 5432 })));
          const lastAttrs = valid.filter(([k]) => k === "target_session_attrs").at(-1)?.[1] ?? "any";
          expect(url.targetSessionAttrs).toBe(lastAttrs);
          expect(url.choosesHost).toBe(hosts.length > 1 || lastAttrs === "read-write");
          for (const h of url.hosts) {
            const single = url.forHost(h);
            expect(single).not.toContain("target_session_attrs");
            expect(single).not.toContain(",");
            const config = parse(single);
            // node-pg reads IPv6 hosts without their brackets, as the URL standard writes them; a
            // name as it is (an http: URL would decode a label like "xn--" as punycode, and fail).
            const ipv6Host = h.host.startsWith("[") ? new URL(`http://${h.host}`).hostname.slice(1, -1) : undefined;
            expect(config.host).toBe(ipv6Host ?? h.host);
            expect(config.port).toBe(String(h.port));
            expect(config.database).toBe(database);
            if (userinfo) expect(config.user).toBe(decodeURIComponent(userinfo.split(":")[0] as string));
          }
        },
      ),
      // First the names an http: URL refuses (punycode labels that do not decode).
      {
        numRuns: 300,
        examples: [
          [
            [
              { host: "xn--", port: undefined },
              { host: "a.xn--b", port: 5433 },
            ],
            undefined,
            "a",
            [],
          ],
        ],
      },
    );
  });
});
