import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { json, setHeader, withNoStoreDefault } from "./handler";
import { JsonResponse } from "./json-response";

/**
 * json() keeps its headers in a plain map until someone reads `headers` (./json-response.ts). The
 * property: whatever headers it is given and whatever apiRoute and the rate limit then set, every
 * reader (the direct router's `headerEntries`, `headers`, the body readers, `clone`) sees what a
 * plain `Response` built and changed the same way holds, and it refuses exactly what that refuses.
 */
describe("json()'s answer, over every header shape", () => {
  const tokenChar = fc.constantFrom(..."abcxyzABCXYZ019-_!#$%&'*+.^`|~");
  const name = fc.oneof(
    fc.string({ unit: tokenChar, minLength: 1, maxLength: 10 }),
    fc.constantFrom("content-type", "Content-Type", "cache-control", "Set-Cookie", "x-trace-id", "bad name", ""),
  );
  // Values Headers keeps as they are, and ones it trims, joins or refuses (control, non-Latin-1).
  const value = fc.oneof(
    fc.string({ unit: fc.constantFrom(...' !"#,;=abcXYZ019'), maxLength: 12 }),
    fc.string({ unit: fc.constantFrom(..." \t\r\na\u0000\u00e9\u2026"), maxLength: 6 }),
  );
  const record = fc.dictionary(name, value, { maxKeys: 5 });
  const sets = fc.array(fc.tuple(name, value), { maxLength: 4 });
  const status = fc.constantFrom(200, 201, 400, 401, 403, 429, 500);
  const body = fc.jsonValue();

  /** What the code did before: a plain Response, changed through its Headers. */
  const plain = (b: unknown, s: number, r: Record<string, string> | undefined, changes: [string, string][]) => {
    const response = new Response(JSON.stringify(b), {
      status: s,
      headers: { "content-type": "application/json; charset=utf-8", ...r },
    });
    for (const [n, v] of changes) response.headers.set(n, v);
    if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
    return response;
  };
  const ours = (b: unknown, s: number, r: Record<string, string> | undefined, changes: [string, string][]) => {
    const response = json(b, { status: s, headers: r });
    for (const [n, v] of changes) setHeader(response, n, v);
    return withNoStoreDefault(response);
  };
  const attempt = <T>(make: () => T): { made: T } | { refused: string } => {
    try {
      return { made: make() };
    } catch (error) {
      return { refused: error instanceof Error ? error.name : String(error) };
    }
  };

  it("holds and writes the same headers, status and text as a Response, or refuses the same", async () => {
    await fc.assert(
      fc.asyncProperty(body, status, fc.option(record, { nil: undefined }), sets, async (b, s, r, changes) => {
        const expected = attempt(() => plain(b, s, r, changes));
        const actual = attempt(() => ours(b, s, r, changes));
        if ("refused" in expected) {
          expect(actual).toEqual(expected);
          return;
        }
        if (!("made" in actual)) throw new Error(`refused: ${actual.refused}`);
        const want = expected.made;
        const got = actual.made;
        expect(got).toBeInstanceOf(JsonResponse);
        // The direct router's reader first, before anything builds the Headers.
        expect([...(got as JsonResponse).headerEntries()]).toEqual([...want.headers]);
        const copy = got.clone();
        // A clone of a clone, made before and after anything read the headers.
        const copyOfCopy = copy.clone();
        expect(got.status).toBe(want.status);
        // Every other member of a Response, though undici never built this one.
        for (const member of ["ok", "statusText", "type", "url", "redirected", "bodyUsed"] as const) {
          expect(got[member], member).toBe(want[member]);
        }
        expect([...got.headers]).toEqual([...want.headers]);
        expect([...(got as JsonResponse).headerEntries()]).toEqual([...want.headers]);
        expect(got.headers.get("content-type")).toBe(want.headers.get("content-type"));
        expect(await got.text()).toBe(await want.clone().text());
        expect([...copy.headers]).toEqual([...want.headers]);
        expect([...copy.clone().headers]).toEqual([...want.headers]);
        expect([...copyOfCopy.headers]).toEqual([...want.headers]);
        expect(copyOfCopy.status).toBe(want.status);
        expect(await copy.json()).toEqual(await want.json());
      }),
      { numRuns: 1000 },
    );
  });

  it("reads through every body reader and the stream as the Response would", async () => {
    const text = JSON.stringify({ a: "é…", b: [1, 2] });
    const readers: ((r: Response) => Promise<unknown>)[] = [
      (r) => r.text(),
      (r) => r.json(),
      async (r) => [...new Uint8Array(await r.arrayBuffer())],
      async (r) => {
        const blob = await r.blob();
        return [blob.type, await blob.text()];
      },
      (r) => new Response(r.body).text(),
      async (r) => [...(await r.bytes())],
      // A JSON body is no form: both refuse it alike.
      (r) => r.formData().then(String, (error: unknown) => (error instanceof Error ? error.name : "?")),
    ];
    for (const read of readers) {
      const got = json(JSON.parse(text));
      const want = new Response(text, { headers: { "content-type": "application/json; charset=utf-8" } });
      expect(await read(got)).toEqual(await read(want));
      expect(got.bodyUsed).toBe(true);
    }
  });

  it("is a Response to whoever asks: instanceof, its tag, util.inspect, and a Response made from it", async () => {
    const got = json({ a: 1 }, { status: 201 });
    expect(got).toBeInstanceOf(Response);
    expect(Object.prototype.toString.call(got)).toBe("[object Response]");
    expect(inspect(got)).toContain("201");
    const copy = new Response(got.body, got);
    expect([copy.status, await copy.json(), copy.headers.get("content-type")]).toEqual([
      201,
      { a: 1 },
      "application/json; charset=utf-8",
    ]);
  });
});
