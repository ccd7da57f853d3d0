import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirectHeaders, DirectRequest } from "./direct-request";
import { JsonResponse, json } from "./handler";
import { HttpError } from "./http-error";
import { readForm, readJsonText } from "./parse";

describe("the direct router's request", () => {
  const raw = { host: "localhost", authorization: "Bearer x", "x-forwarded-for": ["1.1.1.1", "2.2.2.2"] };

  it("reads headers as a Headers does, case-insensitively, sorted, without writing node:http's object", () => {
    const headers = new DirectHeaders({ ...raw });
    const web = new Headers({ host: "localhost", authorization: "Bearer x", "x-forwarded-for": "1.1.1.1, 2.2.2.2" });
    expect(headers).toBeInstanceOf(Headers);
    expect(headers.get("Authorization")).toBe(web.get("authorization"));
    expect(headers.get("X-Forwarded-For")).toBe(web.get("x-forwarded-for"));
    expect(headers.get("missing")).toBeNull();
    expect(headers.has("HOST")).toBe(true);
    expect([...headers]).toEqual([...web]);
    const source = { a: "1" };
    const written = new DirectHeaders(source);
    written.set("b", "2");
    written.append("a", "3");
    written.delete("missing");
    expect([...written]).toEqual([...new Headers({ a: "1, 3", b: "2" })]);
    expect(source).toEqual({ a: "1" });
  });

  it("gives its body once, to the body readers and to lib/api/parse.ts, as a Request does", async () => {
    const body = Buffer.from("grant_type=refresh_token&x=%C3%A9");
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const request = new DirectRequest("POST", "http://localhost/oauth/token", form, body).asRequest();
    expect(await readForm(request)).toEqual({ grant_type: "refresh_token", x: "é" });
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
    const streamed = new DirectRequest("POST", "http://localhost/x", form, body).asRequest();
    expect(await new Response(streamed.body).text()).toBe(body.toString());
    expect(new DirectRequest("GET", "http://localhost/x", {}, undefined).asRequest().body).toBeNull();
    const invalid = new DirectRequest("POST", "http://localhost/x", form, Buffer.from([0x61, 0xff])).asRequest();
    await expect(readForm(invalid)).rejects.toThrow("not valid UTF-8");
  });
});

describe("json()", () => {
  it("answers every Response reader with the same text, once, and clones", async () => {
    const response = json({ a: 1 }, { status: 201, headers: { "x-a": "b" } });
    expect(response).toBeInstanceOf(JsonResponse);
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const copy = response.clone();
    expect(await response.json()).toEqual({ a: 1 });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(await new Response(copy.body).text()).toBe('{"a":1}');
    expect(copy.bodyUsed).toBe(true);
    expect(new TextDecoder().decode(await json([1]).arrayBuffer())).toBe("[1]");
  });
});

/**
 * The property behind both examples above: for any headers node:http can hand over and any body,
 * the direct router's request reads exactly as the web `Request` Next.js would build from them, for
 * every reader a handler or lib/api/parse.ts uses, and refuses exactly what it refuses.
 */
describe("the direct router's request, over every input shape", () => {
  const tokenChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-_!#$%&'*+.^`|~");
  const name = fc.string({ unit: tokenChar, minLength: 1, maxLength: 12 });
  // Header values as node:http gives them: visible ASCII and inner spaces, trimmed at both ends.
  const value = fc
    .string({ unit: fc.constantFrom(..." \t!\"#%&'()*+,-./0123456789:;<=>?@ABCXYZabcxyz[]^_{|}~"), maxLength: 20 })
    .map((v) => v.trim());
  const rawHeaders = fc.dictionary(name, fc.oneof(value, fc.array(value, { minLength: 1, maxLength: 3 })), {
    maxKeys: 6,
  });
  const contentType = fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "application/x-www-form-urlencoded",
    "text/plain",
  );
  const body = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.json().map((text) => new TextEncoder().encode(text)),
    fc
      .dictionary(name, fc.string({ maxLength: 8 }), { maxKeys: 4 })
      .map((fields) => new TextEncoder().encode(new URLSearchParams(fields).toString())),
  );

  const webHeaders = (raw: Record<string, string | string[]>) =>
    new Headers(Object.entries(raw).map(([k, v]): [string, string] => [k, Array.isArray(v) ? v.join(", ") : v]));
  const outcome = (run: () => Promise<unknown>) =>
    run().then(
      (value) => ({ value }),
      (error: unknown) => ({ refused: error instanceof HttpError ? [error.code, error.description] : String(error) }),
    );

  it("reads every header as Headers does, whatever the name's case, and never writes node:http's object", () => {
    fc.assert(
      fc.property(rawHeaders, name, (raw, probe) => {
        const frozen = structuredClone(raw);
        const direct = new DirectHeaders(raw);
        const web = webHeaders(raw);
        expect([...direct]).toEqual([...web]);
        for (const asked of [probe, probe.toUpperCase(), ...Object.keys(raw).map((k) => k.toUpperCase())]) {
          expect(direct.get(asked)).toBe(web.get(asked));
          expect(direct.has(asked)).toBe(web.has(asked));
        }
        direct.set(probe, "x");
        web.set(probe, "x");
        expect([...direct]).toEqual([...web]);
        expect(raw).toEqual(frozen);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives every body reader and lib/api/parse.ts the same answer or the same refusal as a Request", async () => {
    await fc.assert(
      fc.asyncProperty(body, contentType, async (bytes, type) => {
        const headers = { "content-type": type };
        const url = "http://localhost/contacts/";
        const direct = () => new DirectRequest("POST", url, headers, Buffer.from(bytes)).asRequest();
        const web = () => new Request(url, { method: "POST", headers, body: bytes.byteLength ? bytes : undefined });
        for (const read of [
          (r: Request) => r.text(),
          async (r: Request) => [...new Uint8Array(await r.arrayBuffer())],
          (r: Request) => r.json(),
          readForm,
          readJsonText,
        ]) {
          expect(await outcome(() => read(direct()))).toEqual(await outcome(() => read(web())));
        }
      }),
      { numRuns: 300 },
    );
  });
});
