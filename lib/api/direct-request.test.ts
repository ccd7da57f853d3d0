import { describe, expect, it } from "vitest";
import { DirectHeaders, DirectRequest } from "./direct-request";
import { JsonResponse, json } from "./handler";
import { readForm } from "./parse";

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
