// Over 250 lines on purpose: the router and the server's edge are one frame; both groups run
// against one real node:http server with the same echo handlers.
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disableMetrics, enableMetrics } from "@/lib/metrics/metrics";
import { parseScrape } from "@/lib/testing/prometheus";
import { type RawAnswer, rawRequest } from "@/lib/testing/raw-http";
import { directRouter, FRAME_HEADERS, route } from "./direct-router";
import { apiRoute, json } from "./handler";
import { MAX_FORM_BYTES, readForm } from "./parse";
import { routeMethods } from "./route-methods";

/** What the handler saw of the last request, to compare with what was sent. */
let seen: { method: string; url: string; headers: Headers; form: Record<string, string> } | undefined;

const echo = apiRoute(async (request) => {
  seen = { method: request.method, url: request.url, headers: request.headers, form: await readForm(request) };
  return json({ ok: true }, { status: 201, headers: { "cache-control": "no-store" } });
});
const broken = async () => {
  throw new Error("the frame failed; secret=hunter2");
};
/** A route export not wrapped in apiRoute that resolves to something that is not a Response. */
const notAResponse = async () => ({ status: 200 }) as unknown as Response;
/** The same, given at once (no promise), and a frame failing at once. */
const notAResponseNow = () => ({ status: 200 }) as unknown as Response;
const brokenNow = () => {
  throw new Error("the frame failed at once; secret=hunter2");
};
/** A header value node:http refuses to write (a control character), which Headers lets through. */
const unwritable = () => new Response("{}", { headers: { "x-note": "a\u0001b" } });
/** Answers with what it was given: its method, path segments and body. */
const mirror = (name: string) =>
  apiRoute<Record<string, string>>(async (request, { params }) =>
    json({ route: name, method: request.method, params, body: await request.text() }),
  );

/** The Cache-Control of /sized's answers, by index (a query with `%` is left to Next.js). */
const cacheControls = [undefined, "no-store", "private, no-store", "No-Store", "public, max-age=300", "no-cache"];

let server: Server;
let base: string;
let port: number;

beforeAll(async () => {
  const direct = directRouter(
    [
      route("/oauth/token", { POST: echo }),
      route("/broken", { POST: broken }),
      route("/not-a-response", { GET: notAResponse, POST: notAResponse }),
      route("/not-a-response-now", { GET: notAResponseNow }),
      route("/broken-now", { GET: brokenNow }),
      // Answered at once, as a cached read is: no promise between the request and its answer.
      route("/at-once", { GET: apiRoute(() => json({ answered: "at once" })) }),
      route("/unwritable", { GET: unwritable }),
      route("/locations/[locationId]", { GET: mirror("location"), DELETE: mirror("location") }),
      route("/contacts/search", { GET: mirror("search") }),
      route("/contacts/[contactId]", { GET: mirror("contact") }),
      route("/apps/[appId]/versions/[versionId]", { GET: mirror("version") }),
      route("/document", {
        GET: apiRoute(async () =>
          json({ text: "a".repeat(4096) }, { headers: { "cache-control": "public, max-age=300" } }),
        ),
      }),
      // ?size=N&cache=i: an answer of N token characters with cacheControls[i] (none: apiRoute's no-store).
      route("/sized", {
        GET: apiRoute(async (request) => {
          const query = new URL(request.url).searchParams;
          const cache = cacheControls[Number(query.get("cache"))];
          return json(
            { token: "t".repeat(Number(query.get("size"))) },
            cache ? { headers: { "cache-control": cache } } : {},
          );
        }),
      }),
      route("/api/health", routeMethods({ GET: apiRoute(async () => json({ status: "ok" })) })),
    ],
    "http://localhost:3000",
  );
  // As scripts/serve.mjs: the direct routes first, everything else to "Next.js" (here a 404 marker).
  server = createServer((request, response) => {
    if (direct(request, response)) return;
    const forwardedHost = request.headers["x-forwarded-host"];
    const acceptEncoding = request.headers["accept-encoding"];
    response
      .writeHead(404, {
        "x-served-by": "next",
        "x-url": request.url,
        ...(forwardedHost ? { "x-forwarded-host-seen": forwardedHost } : {}),
        ...(acceptEncoding ? { "x-accept-encoding-seen": acceptEncoding } : {}),
      })
      .end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

function post(path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
}

/** GET `path` with that Accept-Encoding, the body as it came (compressed or not). */
function rawGet(path: string, acceptEncoding: string) {
  return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((done, fail) => {
    httpRequest(`${base}${path}`, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on("error", fail)
      .end();
  });
}

describe("the HTTP API served ahead of Next.js (scripts/serve.mjs)", () => {
  it("hand the route's handler the request as sent and write its answer back with the frame headers", async () => {
    const response = await post("/oauth/token?x=1", "grant_type=refresh_token&refresh_token=abc", {
      authorization: "Basic Y2xpZW50OnNlY3JldA==",
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
    for (const [name, value] of Object.entries(FRAME_HEADERS)) expect(response.headers.get(name)).toBe(value);
    expect(seen).toMatchObject({
      method: "POST",
      url: "http://localhost:3000/oauth/token?x=1",
      form: { grant_type: "refresh_token", refresh_token: "abc" },
    });
    expect(seen?.headers.get("authorization")).toBe("Basic Y2xpZW50OnNlY3JldA==");
  });

  it("answer with a trailing slash too, and leave other methods and paths to Next.js", async () => {
    expect((await post("/oauth/token/", "grant_type=x")).status).toBe(201);
    expect((await fetch(`${base}/oauth/token`)).headers.get("x-served-by")).toBe("next");
    expect((await post("/oauth/tokens", "a=b")).headers.get("x-served-by")).toBe("next");
    expect((await post("/oauth/token/x", "a=b")).headers.get("x-served-by")).toBe("next");
  });

  it("hand a dynamic route its segments, as Next.js does, with or without a trailing slash", async () => {
    for (const path of ["/locations/loc_1", "/locations/loc_1/", "/locations/loc_1?fields=name"]) {
      const response = await fetch(`${base}${path}`);
      expect(await response.json()).toEqual({
        route: "location",
        method: "GET",
        params: { locationId: "loc_1" },
        body: "",
      });
      expect(response.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const deleted = await fetch(`${base}/locations/loc_2`, { method: "DELETE", body: "why=gone" });
    expect(await deleted.json()).toMatchObject({ method: "DELETE", params: { locationId: "loc_2" }, body: "why=gone" });
    const nested = await fetch(`${base}/apps/a1/versions/v2`);
    expect(await nested.json()).toMatchObject({ route: "version", params: { appId: "a1", versionId: "v2" } });
  });

  it("prefer a fixed path over a dynamic one, as Next.js does", async () => {
    expect(await (await fetch(`${base}/contacts/search`)).json()).toMatchObject({ route: "search", params: {} });
    expect(await (await fetch(`${base}/contacts/c1`)).json()).toMatchObject({ route: "contact" });
  });

  it("leave to Next.js what it decides: HEAD, methods the module lacks, `%`, empty or extra segments", async () => {
    const servedByNext = async (path: string, method = "GET") =>
      (await fetch(`${base}${path}`, { method })).headers.get("x-served-by");
    expect(await servedByNext("/locations/loc_1", "HEAD")).toBe("next");
    expect(await servedByNext("/locations/loc_1", "PUT")).toBe("next");
    // A `%` may be a broken encoding or a NUL (proxy.ts and apiRoute answer those behind Next.js).
    expect(await servedByNext("/locations/loc%201")).toBe("next");
    expect(await servedByNext("/locations/%E0%A4%A")).toBe("next");
    expect(await servedByNext("/locations/")).toBe("next");
    expect(await servedByNext("/locations//")).toBe("next");
    expect(await servedByNext("/locations/a/b")).toBe("next");
    expect(await servedByNext("/Locations/loc_1")).toBe("next");
  });

  it("gzip an answer of 1 KiB or more for a client that accepts it, as Next.js would", async () => {
    const zipped = await rawGet("/document", "br, gzip;q=0.8");
    expect(zipped.headers).toMatchObject({ "content-encoding": "gzip", vary: "Accept-Encoding" });
    expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual({ text: "a".repeat(4096) });
    for (const refused of ["identity", "gzip;q=0", "br, gzip; q=0.0"]) {
      const plain = await rawGet("/document", refused);
      expect(plain.headers["content-encoding"], refused).toBeUndefined();
      expect(JSON.parse(plain.body.toString()).text, refused).toHaveLength(4096);
    }
    const small = await rawGet("/locations/loc_1", "gzip");
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers.vary).toBe("Accept-Encoding");
  });

  it("never compress a private answer (no-store, the API's default), whatever its size or the client's Accept-Encoding", async () => {
    await fc.assert(
      fc.asyncProperty(
        // Sizes around the 1 KiB line as often as anywhere else.
        fc.oneof(fc.integer({ min: 0, max: 6000 }), fc.integer({ min: 1000, max: 1030 })),
        fc.nat({ max: cacheControls.length - 1 }),
        fc.constantFrom("gzip", "gzip, deflate, br", "br;q=1, gzip;q=0.5", "identity", "gzip;q=0"),
        async (size, index, acceptEncoding) => {
          const cache = cacheControls[index];
          const answer = await rawGet(`/sized?size=${size}&cache=${index}`, acceptEncoding);
          const isPrivate = cache === undefined || /no-store/i.test(cache);
          const gzipped = answer.headers["content-encoding"] === "gzip";
          if (isPrivate) expect(answer.headers["content-encoding"]).toBeUndefined();
          // A public answer still is, from 1 KiB of body (the token and `{"token":""}`), for a client that takes gzip.
          else expect(gzipped).toBe(size + 12 >= 1024 && !/identity|q=0$/.test(acceptEncoding));
          const body = gzipped ? gunzipSync(answer.body) : answer.body;
          expect(JSON.parse(body.toString()).token).toHaveLength(size);
          expect(answer.headers.vary).toBe("Accept-Encoding");
        },
      ),
      { numRuns: 80 },
    );
  });

  it("check the handler's segments against the path it is listed under", () => {
    const byLocation = apiRoute<{ locationId: string }>(async () => json({}));
    expect(route("/locations/[locationId]", { GET: byLocation }).segments).toEqual([
      { literal: "locations" },
      { param: "locationId" },
    ]);
    // @ts-expect-error: the handler reads locationId, the path names contactId
    route("/contacts/[contactId]", { GET: byLocation });
  });

  it("refuse a body over the form limit as the route does, declared or chunked", async () => {
    const huge = new Uint8Array(MAX_FORM_BYTES * 4).fill(0x61);
    const response = await post("/oauth/token", huge);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_request" });
    // Chunked, with no Content-Length to refuse on: the byte count decides.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      req.on("response", (res) => {
        let body = "";
        res.on("data", (c) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      for (let i = 0; i < 5; i++) req.write(Buffer.alloc(MAX_FORM_BYTES / 2, "b"));
      req.end();
    });
    expect(chunked.status).toBe(400);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: "invalid_request" });
  });

  it("keep bytes that are not UTF-8 as they are, so the route refuses them as it would behind Next.js", async () => {
    const response = await post("/oauth/token", new Uint8Array([0x61, 0x3d, 0xff, 0xfe]));
    expect(response.status).toBe(400);
    expect((await response.json()).error_description).toMatch(/UTF-8/);
  });

  it("answer a failure of the frame itself with a server_error that reveals nothing", async () => {
    const response = await post("/broken", "a=b");
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: "server_error" });
    expect(text).not.toMatch(/hunter2|frame failed/);
  });

  it("keep the connection open after an answer given at once, as after one that waited", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<[number | undefined, string | undefined, boolean, string]>((done, fail) => {
        const sent = httpRequest(`${base}${path}`, { agent }, (answer) => {
          let body = "";
          answer.setEncoding("utf8");
          answer.on("data", (chunk: string) => {
            body += chunk;
          });
          answer.on("end", () => done([answer.statusCode, answer.headers.connection, sent.reusedSocket, body]));
        });
        sent.on("error", fail);
        sent.end();
      });
    try {
      const answers = [];
      for (const path of ["/at-once", "/at-once", "/api/health", "/at-once"]) answers.push(await get(path));
      expect(answers).toEqual([
        [200, "keep-alive", false, '{"answered":"at once"}'],
        [200, "keep-alive", true, '{"answered":"at once"}'],
        [200, "keep-alive", true, '{"status":"ok"}'],
        [200, "keep-alive", true, '{"answered":"at once"}'],
      ]);
    } finally {
      agent.destroy();
    }
    // A GET that carries a body is answered at once too; the body it did not wait for ends the connection.
    const withBody = await rawRequest(
      port,
      `GET /at-once HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 5`,
      "abcde",
    );
    expect(withBody.status).toBe(200);
    expect(withBody.headers.connection).toBe("close");
    expect(JSON.parse(withBody.body)).toEqual({ answered: "at once" });
  });

  it("answer a frame failing at once as one failing later: a server_error that reveals nothing", async () => {
    const response = await fetch(`${base}/broken-now`);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: "server_error" });
    expect(text).not.toMatch(/hunter2|frame failed/);
  });

  it("end only the connection when a handler resolves to something that is not a Response", async () => {
    const rejections: unknown[] = [];
    const note = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", note);
    try {
      await expect(fetch(`${base}/not-a-response`)).rejects.toThrow();
      await expect(post("/not-a-response", "a=b")).rejects.toThrow();
      await expect(fetch(`${base}/not-a-response-now`)).rejects.toThrow();
      await new Promise((done) => setTimeout(done, 50));
      expect(rejections).toEqual([]);
      expect((await fetch(`${base}/api/health`)).status).toBe(200);
    } finally {
      process.off("unhandledRejection", note);
    }
  });

  it("write the answers of one turn together: one that cannot be written ends only its own connection, uncounted", async () => {
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", note);
    const metrics = enableMetrics();
    try {
      // Separate connections, sent together, so their answers are ready in the same turns.
      const agent = new Agent({ keepAlive: false });
      const get = (path: string) =>
        new Promise<number>((done, fail) => {
          httpRequest(`${base}${path}`, { agent }, (res) => {
            res.resume();
            res.on("end", () => done(res.statusCode ?? 0));
          })
            .on("error", fail)
            .end();
        });
      const paths = ["/at-once", "/unwritable", "/at-once", "/unwritable", "/at-once"];
      const settled = await Promise.allSettled(paths.map(get));
      expect(settled.map((one) => (one.status === "fulfilled" ? one.value : "ended"))).toEqual([
        200,
        "ended",
        200,
        "ended",
        200,
      ]);
      expect(uncaught).toEqual([]);
      // Counted as answered only when the answer was written.
      const scraped = parseScrape(await metrics.registry.metrics());
      expect(scraped.value("http_requests_total", { route: "/at-once", status: "200" })).toBe(3);
      expect(scraped.value("http_requests_total", { route: "/unwritable" })).toBeUndefined();
      expect((await fetch(`${base}/api/health`)).status).toBe(200);
      agent.destroy();
    } finally {
      disableMetrics();
      process.off("uncaughtException", note);
    }
  });

  it("leave the handler unrun when the client goes away before its body ends, and serve the next request", async () => {
    seen = undefined as typeof seen; // (typed so, the checks below are not narrowed to undefined)
    const rejections: unknown[] = [];
    const note = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", note);
    try {
      const socket = connect(port, "127.0.0.1");
      await new Promise<void>((done) => socket.once("connect", done));
      socket.write(
        "POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\na=b",
      );
      await new Promise((done) => setTimeout(done, 50));
      socket.destroy();
      await new Promise((done) => setTimeout(done, 50));
      expect(seen).toBeUndefined();
      expect(rejections).toEqual([]);
      // A whole body after it is read and answered as ever (its close, after the answer, refuses nothing).
      expect((await post("/oauth/token", "c=d")).status).toBe(201);
      expect(seen?.form).toEqual({ c: "d" });
    } finally {
      process.off("unhandledRejection", note);
    }
  });

  it("send the same frame headers as next.config.mjs gives every other response", async () => {
    // A path in a variable: next.config.mjs is plain JavaScript without types.
    const configPath = resolve("next.config.mjs");
    const config = (await import(configPath)) as {
      default: { headers(): Promise<{ headers: { key: string; value: string }[] }[]> };
    };
    const rules = await config.default.headers();
    const configured = Object.fromEntries(rules.flatMap((r) => r.headers).map((h) => [h.key.toLowerCase(), h.value]));
    expect(configured).toEqual(FRAME_HEADERS);
  });
});

describe("the server's edge (SPEC.md › The edges of the HTTP server)", () => {
  const host = () => `Host: 127.0.0.1:${port}`;
  const expectRefusal = (answer: RawAnswer, description: RegExp) => {
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: "invalid_request",
      error_description: expect.stringMatching(description),
      statusCode: 400,
      traceId: answer.headers["x-trace-id"],
    });
    expect(answer.headers["cache-control"]).toBe("no-store");
    for (const [name, value] of Object.entries(FRAME_HEADERS)) expect(answer.headers[name]).toBe(value);
  };

  it("refuse a method nothing serves with Allow and the JSON body: the route's Allow, or the screens'", async () => {
    for (const method of ["TRACE", "PROPFIND", "MKCOL", "LOCK"]) {
      const onRoute = await rawRequest(port, `${method} /api/health HTTP/1.1\r\n${host()}\r\nConnection: close`);
      expectRefusal(onRoute, new RegExp(`^${method} is not served here`));
      expect(onRoute.headers.allow, method).toBe("GET, HEAD, OPTIONS");
      const elsewhere = await rawRequest(port, `${method} /contacts/x/y HTTP/1.1\r\n${host()}\r\nConnection: close`);
      expectRefusal(elsewhere, /is not served here/);
      expect(elsewhere.headers.allow).toBe("GET, HEAD, POST");
    }
    // With a `%` in the path, left to Next.js otherwise, too.
    const encoded = await rawRequest(port, `TRACE /locations/a%20b HTTP/1.1\r\n${host()}\r\nConnection: close`);
    expectRefusal(encoded, /TRACE is not served here/);
  });

  it("answer a path with `//` or `\\` as the path with single slashes, never redirecting", async () => {
    const token = await rawRequest(
      port,
      `POST //oauth/token HTTP/1.1\r\n${host()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\nConnection: close`,
      "grant_type=",
    );
    expect(token.status).toBe(201);
    expect(seen?.url).toBe("http://localhost:3000/oauth/token");
    const nested = await rawRequest(port, `GET /locations//loc_1///?a=//b HTTP/1.1\r\n${host()}\r\nConnection: close`);
    expect(JSON.parse(nested.body)).toMatchObject({ route: "location", params: { locationId: "loc_1" } });
    // Left to Next.js with the path it would have redirected to, so it answers it instead.
    for (const [target, url] of [
      ["//api/nothing", "/api/nothing"],
      ["//evil.example/x?next=//y", "/evil.example/x?next=//y"],
      ["/\\evil.example", "/evil.example"],
    ]) {
      const answer = await rawRequest(port, `GET ${target} HTTP/1.1\r\n${host()}\r\nConnection: close`);
      expect(answer.headers["x-served-by"], target).toBe("next");
      expect(answer.headers["x-url"], target).toBe(url);
      expect(answer.headers.location, target).toBeUndefined();
    }
  });

  it("serve an absolute-form request line as its path, never naming its host", async () => {
    const health = await rawRequest(
      port,
      `GET http://evil.example/api/health HTTP/1.1\r\n${host()}\r\nConnection: close`,
    );
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "ok" });
    expect(health.headers.location).toBeUndefined();
    const screen = await rawRequest(port, `GET HTTPS://evil.example?x=1 HTTP/1.1\r\n${host()}\r\nConnection: close`);
    expect(screen.headers["x-url"]).toBe("/?x=1");
    const asterisk = await rawRequest(port, `OPTIONS * HTTP/1.1\r\n${host()}\r\nConnection: close`);
    expectRefusal(asterisk, /request target must be a path/);
  });

  it("refuse a body declared over the route's limit before it is sent", async () => {
    // Headers only: the answer comes without the body ever being written.
    const form = await rawRequest(
      port,
      `POST /oauth/token HTTP/1.1\r\n${host()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${MAX_FORM_BYTES + 1}`,
    );
    expectRefusal(form, /larger than 64 KB/);
    expect(form.headers.connection).toBe("close");
    const huge = await rawRequest(
      port,
      `POST /oauth/token HTTP/1.1\r\n${host()}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 20000000`,
    );
    expectRefusal(huge, /larger than 1 MB/);
    expect(huge.headers.connection).toBe("close");
    // A screen's server action: 1 MB at most, refused before proxy.ts or Next.js reads a byte.
    const action = await rawRequest(
      port,
      `POST /login HTTP/1.1\r\n${host()}\r\nNext-Action: abc\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: 20000000`,
    );
    expectRefusal(action, /larger than 1 MB/);
    expect(action.headers.connection).toBe("close");
    expect(action.headers["x-served-by"]).toBeUndefined();
  });

  it("drop a client-sent X-Forwarded-Host without trusted proxies, keep it behind one", async () => {
    const sent = { headers: { "x-forwarded-host": "evil.example" } };
    expect((await fetch(`${base}/login`, sent)).headers.get("x-forwarded-host-seen")).toBeNull();
    const proxied = directRouter([], "http://localhost:3000", { trustedProxyHops: 1 });
    const behindProxy = createServer((request, response) => {
      if (proxied(request, response)) return;
      response.writeHead(404, { "x-forwarded-host-seen": String(request.headers["x-forwarded-host"]) }).end();
    });
    await new Promise<void>((done) => behindProxy.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(behindProxy.address() as AddressInfo).port}/login`;
      expect((await fetch(url, sent)).headers.get("x-forwarded-host-seen")).toBe("evil.example");
    } finally {
      await new Promise((done) => behindProxy.close(done));
    }
  });

  it("refuse a server action from another origin with 403 forbidden (Next.js answered 500); leave ours to Next.js", async () => {
    const action = (origin: string) =>
      rawRequest(
        port,
        `POST /settings HTTP/1.1\r\n${host()}\r\nNext-Action: abc\r\nOrigin: ${origin}\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: 2\r\nConnection: close`,
        "[]",
      );
    for (const origin of ["http://evil.example", "http://127.0.0.1:1", "null", "not a url"]) {
      const refused = await action(origin);
      expect(refused.status, origin).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: "forbidden",
        error_description: expect.stringMatching(/own pages/),
        statusCode: 403,
        traceId: refused.headers["x-trace-id"],
      });
    }
    // The page's own origin, and APP_URL's (the router's origin), reach Next.js (this test server's 404).
    expect((await action(`http://127.0.0.1:${port}`)).status).toBe(404);
    expect((await action("http://localhost:3000")).status).toBe(404);
  });

  it("hand Next.js a screen's POST without Accept-Encoding (its answer may show a secret: BREACH), its GETs with it", async () => {
    const seen = async (method: string, path: string, extra = "") => {
      const body = method === "POST" ? "[]" : "";
      const head = [
        `${method} ${path} HTTP/1.1`,
        host(),
        "Accept-Encoding: gzip, br",
        "Origin: http://localhost:3000",
        ...(extra ? [extra] : []),
        "Content-Type: text/plain;charset=UTF-8",
        `Content-Length: ${body.length}`,
        "Connection: close",
      ].join("\r\n");
      const sent = await rawRequest(port, head, body);
      expect(sent.headers["x-served-by"]).toBe("next");
      return sent.headers["x-accept-encoding-seen"];
    };
    expect(await seen("POST", "/settings/private-integrations", "Next-Action: abc")).toBeUndefined();
    expect(await seen("POST", "/settings/private-integrations")).toBeUndefined();
    expect(await seen("GET", "/settings/private-integrations")).toBe("gzip, br");
  });

  it("hand Next.js any request without Accept-Encoding exactly when it is a POST, whatever its path, action or encodings", async () => {
    let reachedNext = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
        fc.constantFrom(
          "/",
          "/settings/private-integrations",
          "/labs",
          "/nowhere",
          "/oauth/token",
          "/locations/x",
          "/sized?q=%",
        ),
        fc.boolean(),
        fc.constantFrom("gzip", "br", "gzip, deflate, br", "br;q=1, gzip;q=0.5", "identity", "*", "GZIP"),
        async (method, path, action, acceptEncoding) => {
          const body = method === "GET" ? "" : "[]";
          const head = [
            `${method} ${path} HTTP/1.1`,
            host(),
            `Accept-Encoding: ${acceptEncoding}`,
            "Origin: http://localhost:3000",
            ...(action ? ["Next-Action: abc"] : []),
            "Content-Type: text/plain;charset=UTF-8",
            `Content-Length: ${body.length}`,
            "Connection: close",
          ].join("\r\n");
          const sent = await rawRequest(port, head, body);
          // What the router answers itself (an API route, a method nothing serves) is not Next.js's to compress.
          if (sent.headers["x-served-by"] !== "next") return;
          reachedNext++;
          expect(sent.headers["x-accept-encoding-seen"]).toBe(method === "POST" ? undefined : acceptEncoding);
        },
      ),
      { numRuns: 120 },
    );
    expect(reachedNext).toBeGreaterThan(30);
  });

  it("refuse a form posted to a screen from another origin, without JavaScript too: 403 forbidden", async () => {
    const form = (path: string, type: string, origin?: string) =>
      rawRequest(
        port,
        [
          `POST ${path} HTTP/1.1`,
          host(),
          ...(origin === undefined ? [] : [`Origin: ${origin}`]),
          `Content-Type: ${type}`,
          "Content-Length: 5",
          "Connection: close",
        ].join("\r\n"),
        "a=b&c",
      );
    const multipart = "multipart/form-data; boundary=x";
    const urlencoded = "application/x-www-form-urlencoded";
    // No Next-Action header: the form a page without JavaScript posts (Next.js answered 500).
    for (const [path, type, origin] of [
      ["/settings/account", multipart, "http://evil.example"],
      ["/settings/account", multipart, "null"],
      ["/location/loc_1/settings/private-integrations/", urlencoded, "http://evil.example"],
      ["/oauth/chooselocation?client_id=x", multipart, "https://127.0.0.1"],
      ["/", "text/plain", "http://evil.example"],
    ]) {
      const refused = await form(path as string, type as string, origin);
      expect(refused.status, `${path} from ${origin}`).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: "forbidden",
        error_description: expect.stringMatching(/this site's own pages/),
        statusCode: 403,
        traceId: refused.headers["x-trace-id"],
      });
      expect(refused.headers["cache-control"]).toBe("no-store");
    }
    // Our own origin, APP_URL's, or none at all (Next.js decides, as before): on to Next.js.
    for (const origin of [`http://127.0.0.1:${port}`, "http://localhost:3000", undefined]) {
      expect((await form("/settings/account", multipart, origin)).headers["x-served-by"], origin).toBe("next");
    }
    // Not a screen: next-auth's own routes, and paths nothing serves, answer for themselves.
    for (const path of ["/api/auth/callback/credentials", "/nothing-here", "/settingsx"]) {
      expect((await form(path, urlencoded, "http://evil.example")).headers["x-served-by"], path).toBe("next");
    }
  });

  it("take server actions from APP_URL's origin (next.config.mjs), whatever Host a proxy passes on", async () => {
    const config = (await import(resolve("next.config.mjs"))) as {
      default: { experimental: { serverActions?: { allowedOrigins?: string[] } } };
    };
    // next.config.mjs derives NEXTAUTH_URL from APP_URL (or PORT) when it is not set.
    const appOrigin = new URL(process.env.NEXTAUTH_URL ?? "").host;
    expect(config.default.experimental.serverActions?.allowedOrigins).toEqual([appOrigin]);
  });
});
