// Over 250 lines on purpose: SPEC.md's edges through the production server over raw
// TCP, with a second server of its own; they share the loopback client plumbing.
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { resolve } from "node:path";
import { type RawAnswer, rawRequest } from "@/lib/testing/raw-http";
import { routeTablePaths } from "../scripts/route-table";
import { freshPostgresDatabase } from "../scripts/support/database";
import { type ProductionServer, startProductionServer } from "../scripts/support/production-server";
import { e2eBaseUrl, e2eDir, e2ePort, seededOwner } from "./support/env";
import { type Answer, send } from "./support/http";
import { fillNewIntegration, takeShownToken } from "./support/private-integrations";
import { rememberSecret } from "./support/secrets";
import { checkSecretsAtRest } from "./support/secrets-at-rest";
import { expect, test } from "./support/test";
import { createAgency, e2ePassword, signIn } from "./support/world";

/**
 * Through the real production server (scripts/start.ts → scripts/serve.mjs): the client
 * address is the connection's peer whatever the request claims, and no page can be framed.
 *
 * Every call goes to loopback only. Linux answers on all of 127.0.0.0/8, so a client that binds
 * its end of the connection to another loopback address (127.a.b.c, random per run) is another
 * client as far as the server can tell: its sign-in failures block that address, not 127.0.0.1,
 * and the other specs are not affected. The hop rule (TRUSTED_PROXY_HOPS) is shown on a second
 * server of this spec's own.
 */
const octet = () => randomBytes(1)[0]!;
/** A loopback address other than 127.0.0.1, new for each run (a retry is not blocked already). */
const otherLoopback = `127.${1 + (octet() % 254)}.${octet()}.${1 + (octet() % 254)}`;

/** A client that claims another address on every request, in both headers it could try. */
const forgedHeaders = () => ({
  "x-forwarded-for": `203.0.113.${octet()}, 198.51.100.${octet()}`,
  "x-peer-address": `10.${octet()}.${octet()}.${octet()}`,
});

const setCookies = (answer: Answer) => {
  const value = answer.headers["set-cookie"];
  return Array.isArray(value) ? value : value ? [value] : [];
};

type SignInOutcome = "signed in" | "invalid" | "throttled";

/** next-auth's credentials sign-in as the login form posts it, from `localAddress` (default 127.0.0.1). */
async function signInOverHttp(
  email: string,
  password: string,
  headers: Record<string, string>,
  localAddress = "127.0.0.1",
): Promise<SignInOutcome> {
  // 127.0.0.1 rather than localhost: one address for every call, never ::1 for some of them.
  const base = `http://127.0.0.1:${e2ePort}`;
  const csrf = await send(`${base}/api/auth/csrf`, { headers, localAddress });
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  const cookie = setCookies(csrf)
    .map((c) => c.split(";")[0])
    .join("; ");
  const answer = await send(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { ...headers, cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }).toString(),
    localAddress,
  });
  // next-auth answers `{url}` (200 signed in, 401 refused), its error code in the url's query.
  const contentType = String(answer.headers["content-type"] ?? "");
  const body = contentType.includes("json") ? (JSON.parse(answer.text) as { url?: string }) : {};
  const url = body.url ?? String(answer.headers.location ?? "");
  const error = new URL(url, base).searchParams.get("error");
  if (error === "invalid" || error === "throttled") return error;
  expect(error, `unexpected sign-in answer ${answer.status} ${url}`).toBeNull();
  expect(setCookies(answer).some((c) => c.startsWith("next-auth.session-token="))).toBe(true);
  return "signed in";
}

/** POST /api/operator with a key that is not the operator's: 403 before the key check, 401 at it. */
const callOperator = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/operator`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer not-the-key", ...headers },
    body: JSON.stringify({ command: "company:list", flags: {} }),
  });

test.describe("the client address is the connection's peer", () => {
  test("the operator endpoint does not believe a forged claim to be remote", async () => {
    // TRUSTED_PROXY_HOPS=0: X-Forwarded-For and a client-sent x-peer-address are ignored, so this
    // loopback call is let through to the key check even though both headers say it comes from afar.
    const local = await callOperator(`http://127.0.0.1:${e2ePort}`, {
      "x-forwarded-for": "203.0.113.7",
      "x-peer-address": "203.0.113.7",
    });
    expect(local.status).toBe(401);
    expect(await local.json()).toMatchObject({ error: "invalid_token" });
  });

  test("sign-in throttle: a parallel burst with forged X-Forwarded-For, then password spraying", async () => {
    const { owner } = await createAgency();
    // A burst of wrong passwords at one account from one client, each request claiming another address.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => signInOverHttp(owner.email, `guess-${i}`, forgedHeaders(), otherLoopback)),
    );
    expect(burst.filter((o) => o === "invalid").length).toBeLessThanOrEqual(4);
    expect(burst.filter((o) => o === "throttled").length).toBeGreaterThanOrEqual(16);
    // That client is blocked at this account now, for the right password too; the owner, from
    // another address, is not locked out (SPEC.md › The edges of the HTTP server).
    expect(await signInOverHttp(owner.email, e2ePassword, forgedHeaders(), otherLoopback)).toBe("throttled");
    expect(await signInOverHttp(owner.email, e2ePassword, {})).toBe("signed in");

    // Spraying: one guess at each of many accounts, from that client claiming a new address every
    // time. The 21 attempts above count too: the 30th failure from one address (lib/auth/throttle.ts)
    // blocks it. Had the claimed addresses been counted, every spray would answer "invalid".
    const sprayed: SignInOutcome[] = [];
    for (let i = 0; i < 10; i++) {
      sprayed.push(
        await signInOverHttp(
          `sprayed-${i}-${randomBytes(4).toString("hex")}@e2e.test`,
          "guess",
          forgedHeaders(),
          otherLoopback,
        ),
      );
    }
    expect(sprayed).toEqual([...Array<SignInOutcome>(8).fill("invalid"), "throttled", "throttled"]);
    expect(await signInOverHttp(seededOwner.email, seededOwner.password, forgedHeaders(), otherLoopback)).toBe(
      "throttled",
    );
    // The block is on that client's address, not on the addresses it claimed: 127.0.0.1 still signs
    // in, also when it claims to be the blocked client.
    expect(
      await signInOverHttp(seededOwner.email, seededOwner.password, {
        "x-forwarded-for": otherLoopback,
        "x-peer-address": otherLoopback,
      }),
    ).toBe("signed in");
  });
});

test.describe("behind one trusted proxy (TRUSTED_PROXY_HOPS=1)", () => {
  // A second production server of this spec's own (the e2e build, a fresh database): the proxy in
  // front of it is played by the test, which writes X-Forwarded-For as a proxy on this machine would.
  const port = e2ePort + 50;
  const dir = resolve(e2eDir, `proxied-${port}`);
  const logFile = resolve(dir, "server.log");
  const serverSecret = `proxied-server-secret-${randomBytes(16).toString("hex")}`;
  const ownerPassword = `proxied-owner-${randomBytes(8).toString("hex")}`;
  let server: ProductionServer | undefined;
  let databaseUrl = "";
  let dropDatabase: (() => Promise<void>) | undefined;

  test.beforeAll(async () => {
    test.setTimeout(5 * 60_000); // migrations and seed on a fresh database; the build is the suite's
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    databaseUrl = `file:${resolve(dir, "pglite")}`;
    if (process.env.TEST_DATABASE_URL) {
      const database = await freshPostgresDatabase(process.env.TEST_DATABASE_URL, `e2e_${port}`);
      databaseUrl = database.url;
      dropDatabase = database.drop;
    }
    rememberSecret(serverSecret, "proxied server: server secret");
    rememberSecret(ownerPassword, "proxied server: owner password");
    server = await startProductionServer({
      port,
      host: "127.0.0.1",
      databaseUrl,
      serverSecret,
      logFile,
      env: {
        TRUSTED_PROXY_HOPS: "1",
        // A slow request is dropped after 2 s here (the edges' test below), 20 s by default.
        REQUEST_TIMEOUT_SECONDS: "2",
        // The bench's switch: still no /api/bench/* route, since this is not the bench's build.
        BENCH_DB_TIMING: "1",
        // The same e-mail as the main server's owner: the secrets check wants it in the dump.
        SEED_ADMIN_EMAIL: seededOwner.email,
        SEED_ADMIN_PASSWORD: ownerPassword,
        LOG_LEVEL: "info",
      },
    });
  });

  test.afterAll(async () => {
    test.setTimeout(2 * 60_000);
    await server?.stop();
    try {
      // Its database and log hold none of the suite's secrets either (as the global teardown checks the main server's).
      if (server) await checkSecretsAtRest(databaseUrl, logFile, resolve(dir, "secrets-at-rest.json"));
    } finally {
      await dropDatabase?.();
    }
  });

  test("the operator endpoint believes the proxy's word, and only the proxy's", async () => {
    const base = server!.baseUrl;
    // The proxy says its client is elsewhere: refused before the key is looked at.
    const remote = await callOperator(base, { "x-forwarded-for": "203.0.113.7" });
    expect(remote.status).toBe(403);
    expect(await remote.json()).toMatchObject({ error: "forbidden", statusCode: 403 });
    // A client-sent x-peer-address changes nothing: the server sets it from the socket.
    const claimed = await callOperator(base, { "x-forwarded-for": "203.0.113.7", "x-peer-address": "127.0.0.1" });
    expect(claimed.status).toBe(403);
    // Only the proxy's entry counts: one the client wrote further left does not.
    const forgedLeft = await callOperator(base, { "x-forwarded-for": "127.0.0.1, 203.0.113.7" });
    expect(forgedLeft.status).toBe(403);
    // The proxy says its client is on this machine: on to the key check.
    const local = await callOperator(base, { "x-forwarded-for": "127.0.0.1" });
    expect(local.status).toBe(401);
    expect(await local.json()).toMatchObject({ error: "invalid_token" });
  });

  test("a request whose body does not come is dropped in seconds (REQUEST_TIMEOUT_SECONDS=2)", async () => {
    const port = Number(new URL(server!.baseUrl).port);
    // Headers announcing a body, then nothing: an API route, and a screen's form post.
    for (const [path, type] of [
      ["/oauth/token", "application/x-www-form-urlencoded"],
      ["/login", "application/x-www-form-urlencoded"],
    ]) {
      const started = Date.now();
      const answer = await rawRequest(
        port,
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: ${type}\r\nContent-Length: 100`,
        "grant_type=",
        15_000,
      );
      const waited = Date.now() - started;
      expect(waited, path).toBeGreaterThanOrEqual(1_900);
      expect(waited, path).toBeLessThan(5_000);
      expectEdgeRefusal(answer, /not received within 2 seconds/);
    }
  });

  test("a connection that sends nothing is closed without a byte when the timeout ends", async () => {
    const port = Number(new URL(server!.baseUrl).port);
    const started = Date.now();
    const { received, closedAfterMs } = await new Promise<{ received: number; closedAfterMs: number }>((done, fail) => {
      let received = 0;
      const socket = connect(port, "127.0.0.1");
      socket.on("data", (chunk) => {
        received += chunk.length;
      });
      const giveUp = setTimeout(() => {
        socket.destroy();
        fail(new Error("the idle connection was still open after 15 s"));
      }, 15_000);
      socket.on("error", fail);
      socket.on("close", () => {
        clearTimeout(giveUp);
        done({ received, closedAfterMs: Date.now() - started });
      });
    });
    // A browser's spare connection: never an answer it could show as a page.
    expect(received).toBe(0);
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_900);
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  test("nothing built for the bench is routed, even with the bench's BENCH_DB_TIMING=1", async () => {
    const answer = await fetch(`${server!.baseUrl}/api/bench/db-time`);
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ error: "not_found", statusCode: 404 });
  });
});

/**
 * The hidden fields of the form with the field `named`, as the server rendered them: React's
 * `$ACTION_…` fields, which a browser without JavaScript posts to run the form's server action.
 */
function hiddenFields(html: string, named: string): Record<string, string> {
  const form = html
    .split("<form")
    .map((part) => part.split("</form>")[0] ?? "")
    .find((part) => part.includes(`name="${named}"`));
  const decode = (text: string) =>
    text.replace(
      /&(quot|amp|lt|gt|#x27|#39);/g,
      (_, entity: string) => ({ quot: '"', amp: "&", lt: "<", gt: ">", "#x27": "'", "#39": "'" })[entity] ?? "",
    );
  const fields: Record<string, string> = {};
  for (const [, attributes = ""] of (form ?? "").matchAll(/<input([^>]*)>/g)) {
    const attribute = (name: string) => new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes)?.[1];
    const name = attribute("name");
    if (attribute("type") === "hidden" && name) fields[decode(name)] = decode(attribute("value") ?? "");
  }
  return fields;
}

/** SPEC.md's 400 invalid_request, as the edge (lib/api/direct-router.ts, scripts/serve.mjs) writes it. */
function expectEdgeRefusal(answer: RawAnswer, description: RegExp) {
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({
    error: "invalid_request",
    error_description: expect.stringMatching(description),
    statusCode: 400,
    traceId: answer.headers["x-trace-id"],
  });
  expect(answer.headers["cache-control"]).toBe("no-store");
  expect(answer.headers["x-frame-options"]).toBe("DENY");
}

test.describe("the edges of the HTTP server (SPEC.md), over raw TCP", () => {
  const host = `Host: localhost:${e2ePort}`;
  const raw = (requestLine: string, headers: string[] = [], body = "") =>
    rawRequest(e2ePort, [requestLine, host, ...headers, "Connection: close"].join("\r\n"), body);

  test("a method nothing serves: 400 with Allow and the JSON body, whatever the path", async () => {
    for (const [line, allow] of [
      ["TRACE /contacts HTTP/1.1", "POST, OPTIONS"],
      ["TRACE /oauth/token HTTP/1.1", "POST, OPTIONS"],
      ["PROPFIND /locations/loc_1 HTTP/1.1", "GET, HEAD, OPTIONS"],
      ["TRACE /login HTTP/1.1", "GET, HEAD, POST"],
      ["PROPFIND /x HTTP/1.1", "GET, HEAD, POST"],
      ["MKCOL /contacts/c%201 HTTP/1.1", "GET, HEAD, POST"],
    ] as const) {
      const answer = await raw(line);
      expectEdgeRefusal(answer, /is not served here/);
      expect(answer.headers.allow, line).toBe(allow);
    }
    // A method token Node's parser does not know at all, and a request line that is not HTTP.
    for (const line of ["FOO@ /contacts HTTP/1.1", "BREW /pot HTTP/1.1", "GET /contacts HTTP/9.9 extra"]) {
      const answer = await raw(line);
      expectEdgeRefusal(answer, /could not be read as HTTP/);
      expect(answer.headers.allow, line).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    }
  });

  test("CONNECT and a request to Upgrade the connection: the JSON error body, not a closed connection", async () => {
    const upgrades = [
      // A WebSocket handshake, to a screen and to an API route.
      ...["/", "/api/health"].map((path) => [
        `GET ${path} HTTP/1.1`,
        host,
        "Connection: Upgrade",
        "Upgrade: websocket",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      ]),
      // HTTP/2 over cleartext, as `curl --http2` asks for it.
      [
        "GET /login HTTP/1.1",
        host,
        "Connection: Upgrade, HTTP2-Settings",
        "Upgrade: h2c",
        "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA",
      ],
    ];
    for (const head of [[`CONNECT evil.example:443 HTTP/1.1`, "Host: evil.example:443"], ...upgrades]) {
      const answer = await rawRequest(e2ePort, head.join("\r\n"));
      expectEdgeRefusal(answer, head[0]!.startsWith("CONNECT") ? /CONNECT is not served here/ : /does not upgrade/);
      expect(answer.headers.connection, head[0]).toBe("close");
    }
  });

  test("`//` paths and absolute-form request lines are answered, never redirected", async () => {
    const form = ["Content-Type: application/x-www-form-urlencoded", "Content-Length: 19"];
    const token = await raw("POST //oauth/token HTTP/1.1", form, "grant_type=password");
    expect(token.status).toBe(400);
    expect(JSON.parse(token.body)).toMatchObject({ error: "unsupported_grant_type" });
    expect(token.headers.location).toBeUndefined();
    for (const line of [
      "GET //api/health HTTP/1.1",
      "GET http://evil.example/api/health HTTP/1.1",
      "GET http://evil.example//api/health/ HTTP/1.1",
    ]) {
      const answer = await raw(line);
      expect(answer.status, line).toBe(200);
      expect(JSON.parse(answer.body), line).toEqual({ status: "ok" });
      expect(answer.headers.location, line).toBeUndefined();
    }
    // Paths nothing serves, and screens: the JSON 404 or the page, never a Location.
    for (const [line, status] of [
      ["GET //evil.example/ HTTP/1.1", 404],
      ["GET /\\evil.example HTTP/1.1", 404],
      ["GET http://evil.example/nothing HTTP/1.1", 404],
      ["GET //login HTTP/1.1", 200],
      ["GET http://evil.example/login HTTP/1.1", 200],
    ] as const) {
      const answer = await raw(line);
      expect(answer.status, line).toBe(status);
      expect(answer.headers.location, line).toBeUndefined();
      if (status === 404) expect(JSON.parse(answer.body), line).toMatchObject({ error: "not_found" });
    }
  });

  test("a body declared over the route's limit is refused before it is sent", async () => {
    // Headers only, no `Connection: close`: the server answers and closes without the body.
    const declared = (line: string, type: string, extra: string[] = [], length = 20_000_000) =>
      rawRequest(e2ePort, [line, host, `Content-Type: ${type}`, ...extra, `Content-Length: ${length}`].join("\r\n"));
    const form = "application/x-www-form-urlencoded";
    for (const path of ["/oauth/token", "/oauth/revoke", "/oauth/introspect"]) {
      // The form routes' own limit, 64 KB, checked by the route from the declared length.
      const answer = await declared(`POST ${path} HTTP/1.1`, form, [], 70_000);
      expectEdgeRefusal(answer, /larger than 64 KB/);
      expect(answer.headers.connection, path).toBe("close");
    }
    for (const path of ["/oauth/token", "/oauth/locationToken", "/webhooks/events", "/api/operator"]) {
      // More than anything takes: refused at the edge whatever the route checks first.
      const answer = await declared(`POST ${path} HTTP/1.1`, form);
      expectEdgeRefusal(answer, /larger than 1 MB/);
      expect(answer.headers.connection, path).toBe("close");
    }
    const contact = await declared("POST /contacts HTTP/1.1", "application/json", ["Authorization: Bearer x"]);
    expectEdgeRefusal(contact, /larger than 1 MB/);
    // A screen's server action (and its form post): 1 MB, before proxy.ts or Next.js reads it.
    const action = await declared("POST /login HTTP/1.1", "text/plain;charset=UTF-8", ["Next-Action: 0123abcd"]);
    expectEdgeRefusal(action, /larger than 1 MB/);
    const formPost = await declared("POST /settings HTTP/1.1", "multipart/form-data; boundary=x");
    expectEdgeRefusal(formPost, /larger than 1 MB/);
  });

  test("a server action posted from another origin: 403 forbidden with the JSON body (Next.js answered 500)", async () => {
    for (const origin of ["http://evil.example", "null"]) {
      const answer = await raw(
        "POST /settings HTTP/1.1",
        [`Origin: ${origin}`, "Next-Action: 0123abcd", "Content-Type: text/plain;charset=UTF-8", "Content-Length: 2"],
        "[]",
      );
      expect(answer.status, origin).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({ error: "forbidden", statusCode: 403 });
    }
  });

  test("the password form posted without JavaScript from another origin: 403 with the JSON body, nothing changed", async ({
    page,
    browser,
  }) => {
    const { owner } = await createAgency();
    await signIn(page, owner.email);
    // Signed in: this client carries the session cookie, as the browser does when another site posts the form.
    const client = page.context().request;
    const form = hiddenFields(await (await client.get("/settings/account")).text(), "currentPassword");
    expect(
      Object.keys(form).some((name) => name.startsWith("$ACTION_")),
      "the form's action fields",
    ).toBe(true);
    const newPassword = `e2e-changed-${randomBytes(6).toString("hex")}`;
    rememberSecret(newPassword, "typed: new password");
    const post = (origin: string) =>
      client.post("/settings/account", {
        headers: { origin },
        multipart: { ...form, currentPassword: e2ePassword, newPassword },
        maxRedirects: 0,
      });
    for (const origin of ["http://evil.example", "null"]) {
      const refused = await post(origin);
      expect(refused.status(), origin).toBe(403);
      expect(await refused.json()).toMatchObject({
        error: "forbidden",
        error_description: expect.stringMatching(/this site's own pages/),
        statusCode: 403,
        traceId: refused.headers()["x-trace-id"],
      });
    }
    const signsIn = async (password: string) => {
      const context = await browser.newContext();
      await signIn(await context.newPage(), owner.email, password);
      await context.close();
    };
    await signsIn(e2ePassword);
    // The same post from this site's own page changes it: the refused ones were the working form.
    expect((await post(new URL(e2eBaseUrl).origin)).status()).toBe(200);
    await signsIn(newPassword);
  });

  test("a screen's form post without a declared length is read 1 MB at most (proxy.ts)", async () => {
    // A valid multipart form of 1.1 MB, sent chunked: proxy.ts parsed any size before.
    const form = `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n${"a".repeat(1_100_000)}\r\n--x--\r\n`;
    const chunks: string[] = [];
    for (let at = 0; at < form.length; at += 65_536) {
      const chunk = form.slice(at, at + 65_536); // ASCII: one byte per character
      chunks.push(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    }
    const answer = await raw(
      "POST /oauth/chooselocation HTTP/1.1",
      ["Content-Type: multipart/form-data; boundary=x", "Transfer-Encoding: chunked"],
      `${chunks.join("")}0\r\n\r\n`,
    );
    expectEdgeRefusal(answer, /larger than 1 MB/);
  });

  test("every API answer with account or token data says Cache-Control: no-store", async () => {
    // Every route of the route table (scripts/route-table.ts generates it), each method, signed out.
    const paths = routeTablePaths().map((path) => path.replace(/\[\w+\]/g, "x_1"));
    expect(paths.length).toBeGreaterThan(10);
    const publicDocuments = /^\/(openapi\.json|\.well-known\/.+)$/;
    for (const path of [...paths, "/nothing-here"]) {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]) {
        const body = method === "GET" || method === "OPTIONS" || method === "TRACE" ? "" : "a=b";
        const headers = ["Content-Type: application/x-www-form-urlencoded", `Content-Length: ${body.length}`];
        const answer = await raw(`${method} ${path} HTTP/1.1`, headers, body);
        const where = `${method} ${path} (${answer.status})`;
        expect(answer.status, where).toBeLessThan(500);
        const expected = method === "GET" && publicDocuments.test(path) ? "public, max-age=300" : "no-store";
        expect(answer.headers["cache-control"], where).toBe(expected);
      }
    }
  });

  test("nothing built for the bench is routed", async () => {
    const answer = await raw("GET /api/bench/db-time HTTP/1.1");
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: "not_found" });
  });
});

test.describe("no page can be framed", () => {
  test("every response says frame-ancestors 'none' and X-Frame-Options: DENY", async ({ request }) => {
    for (const path of ["/oauth/chooselocation?client_id=x", "/login", "/", "/settings", "/api/health", "/docs"]) {
      const response = await request.get(path, { maxRedirects: 0 });
      expect(response.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
      expect(response.headers()["x-frame-options"], path).toBe("DENY");
    }
    // The API, which scripts/serve.mjs answers ahead of Next.js (lib/api/direct-router.ts):
    // Next.js's answers vary on its router headers (rsc, …), the API's only on Accept-Encoding.
    for (const path of ["/api/health", "/locations/loc_1", "/contacts/c_1/", "/openapi.json"]) {
      const response = await request.get(path, { headers: { "accept-encoding": "gzip" } });
      expect(response.headers().vary, path).toBe("Accept-Encoding");
      expect(response.headers()["x-frame-options"], path).toBe("DENY");
      expect(response.headers()["x-trace-id"], path).toMatch(/^[0-9a-f-]{36}$/);
    }
    const document = await request.get("/openapi.json", { headers: { "accept-encoding": "gzip" } });
    expect(document.headers()["content-encoding"]).toBe("gzip");
    expect((await document.json()).openapi).toMatch(/^3\.1/);
    // Refusals and bodies over the limit included.
    for (const path of ["/oauth/token", "/oauth/locationToken/"]) {
      const forms: Record<string, string>[] = [{ grant_type: "password" }, { big: "a".repeat(70 * 1024) }];
      for (const form of forms) {
        const response = await request.post(path, { form });
        expect(response.status(), path).toBeGreaterThanOrEqual(400);
        expect(response.status(), path).toBeLessThan(500);
        expect(response.headers()["content-security-policy"], path).toContain("frame-ancestors 'none'");
        expect(response.headers()["x-frame-options"], path).toBe("DENY");
        expect(response.headers()["cache-control"], path).toBe("no-store");
        expect(response.headers()["x-trace-id"], path).toMatch(/^[0-9a-f-]{36}$/);
      }
    }
  });

  test("a browser does not show the sign-in page in a frame", async ({ page }) => {
    // The page's load event waits for its frame, blocked or not.
    await page.setContent(`<iframe src="${e2eBaseUrl}/login"></iframe>`, { waitUntil: "load" });
    const framed = page.frames().find((f) => f !== page.mainFrame());
    expect(framed).toBeDefined();
    // Blocked: Chromium shows its own error page there, without the form (or with no document at all).
    const passwordFields = await framed!
      .locator("input[type=password]")
      .count()
      .catch(() => 0);
    expect(passwordFields).toBe(0);
  });
});

test.describe("BREACH: an answer that shows a secret is never compressed", () => {
  test("a screen's server action that shows a new token comes back uncompressed; its page stays compressed", async ({
    page,
  }) => {
    const agency = await createAgency({ labs: true });
    await signIn(page, agency.owner.email);
    const path = "/settings/private-integrations";
    await page.goto(path);
    // Next.js compresses the screen itself for a browser that accepts it (nothing secret is on it).
    const screen = await page.request.get(path, { headers: { "accept-encoding": "gzip" } });
    expect(screen.headers()["content-encoding"]).toBe("gzip");

    const form = await fillNewIntegration(page, "Never compressed");
    const action = page.waitForResponse(
      (response) => response.request().method() === "POST" && response.request().headers()["next-action"] !== undefined,
    );
    await form.getByRole("button", { name: "Create", exact: true }).click();
    const answer = await action;
    // Chromium asked for it compressed; the answer carries the new token beside the name typed above.
    expect(await answer.request().headerValue("accept-encoding")).toMatch(/gzip/);
    expect(await answer.headerValue("content-encoding")).toBeNull();
    await takeShownToken(page);
  });
});
