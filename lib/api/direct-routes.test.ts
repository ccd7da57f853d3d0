import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directRoutes, FRAME_HEADERS, type WebHandler } from "./direct-routes";
import { apiRoute, json } from "./handler";
import { MAX_FORM_BYTES, readForm } from "./parse";

/** What the handler saw of the last request, to compare with what was sent. */
let seen: { method: string; url: string; headers: Headers; form: Record<string, string> } | undefined;

const echo: WebHandler = apiRoute(async (request) => {
  seen = { method: request.method, url: request.url, headers: request.headers, form: await readForm(request) };
  return json({ ok: true }, { status: 201, headers: { "cache-control": "no-store" } });
});
const broken: WebHandler = async () => {
  throw new Error("the frame failed; secret=hunter2");
};

let server: Server;
let base: string;

beforeAll(async () => {
  const direct = directRoutes({ "/oauth/token": echo, "/broken": broken }, "http://localhost:3000");
  // As scripts/serve.mjs: the direct routes first, everything else to "Next.js" (here a 404 marker).
  server = createServer((request, response) => {
    if (direct(request, response)) return;
    response.writeHead(404, { "x-served-by": "next" }).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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

describe("the token endpoints served ahead of Next.js (scripts/serve.mjs)", () => {
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
