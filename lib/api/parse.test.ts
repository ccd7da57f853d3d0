import { describe, expect, it } from "vitest";
import { z } from "zod";
import { HttpError } from "./http-error";
import { parseForm, parseJson, parseQuery } from "./parse";

const form = (body: string, type = "application/x-www-form-urlencoded") =>
  new Request("http://x/t", { method: "POST", headers: { "content-type": type }, body });
const schema = z.strictObject({ a: z.string(), n: z.coerce.number().int().optional() });

/** The HttpError `promise` is refused with (the test fails when it is not). */
async function httpRefusal(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe("reading a form body", () => {
  it("parses fields", async () => {
    await expect(parseForm(form("a=x%20y&n=3"), schema)).resolves.toEqual({ a: "x y", n: 3 });
  });

  it.each([
    ["another content type", form("a=1", "application/json"), 400, "application/x-www-form-urlencoded"],
    ["no content type", new Request("http://x/t", { method: "POST", body: "a=1" }), 400, "x-www-form-urlencoded"],
    ["a parameter twice", form("a=1&a=2"), 400, "more than once"],
    ["broken percent-encoding", form("a=%zz"), 400, "percent-encoding"],
    ["a missing field", form("n=1"), 400, "a is required"],
    ["an unknown field", form("a=1&zzz=2"), 400, "zzz"],
    ["a wrong type", form("a=1&n=abc"), 400, "n:"],
    ["a huge body", form(`a=${"x".repeat(70 * 1024)}`), 400, "larger than"],
  ])("refuses %s with a 4xx that says why", async (_name, request, status, words) => {
    const error = await httpRefusal(parseForm(request, schema));
    expect(error.code).toBe("invalid_request");
    expect(error.status).toBe(status);
    expect(error.description).toContain(words);
  });

  it("refuses bytes that are not UTF-8", async () => {
    const request = new Request("http://x/t", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new Uint8Array([0x61, 0x3d, 0xff, 0xfe]),
    });
    expect((await httpRefusal(parseForm(request, schema))).description).toContain("UTF-8");
  });
});

describe("reading a JSON body", () => {
  const json = (body: string, type = "application/json") =>
    new Request("http://x/t", { method: "POST", headers: { "content-type": type }, body });

  it("parses, including a charset parameter", async () => {
    await expect(parseJson(json('{"a":"1"}', "application/json; charset=utf-8"), schema)).resolves.toEqual({ a: "1" });
  });

  it.each([
    ["not JSON", json("{nope"), "not valid JSON"],
    ["form content type", json('{"a":"1"}', "text/plain"), "Content-Type: application/json"],
    ["an array", json("[1]"), "invalid"],
    ["2 MB", json(JSON.stringify({ a: "x".repeat(2 * 1024 * 1024) })), "larger than"],
  ])("refuses %s", async (_name, request, words) => {
    expect((await httpRefusal(parseJson(request, schema))).description).toContain(words);
  });
});

describe("reading a query string", () => {
  it("refuses a repeated parameter", () => {
    expect(() => parseQuery(new Request("http://x/t?a=1&a=2"), schema)).toThrow(/more than once/);
    expect(parseQuery(new Request("http://x/t?a=1"), schema)).toEqual({ a: "1" });
  });
});
