import { describe, expect, it } from "vitest";
import { apiRoute } from "./handler";
import { HttpError } from "./http-error";

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("every API answer", () => {
  it("carries a trace id equal to the error body's", async () => {
    const route = apiRoute(async () => {
      throw new HttpError("conflict", "Already there.", { extra: { id: "c1" }, headers: { "retry-after": "1" } });
    });
    const response = await route(new Request("http://x/t"));
    const body = await response.json();
    expect(response.status).toBe(409);
    expect(response.headers.get("x-trace-id")).toMatch(uuid);
    expect(body).toEqual({
      error: "conflict",
      error_description: "Already there.",
      statusCode: 409,
      traceId: response.headers.get("x-trace-id"),
      id: "c1",
    });
    expect(response.headers.get("retry-after")).toBe("1");
  });

  it("turns an unexpected failure into a server_error that reveals nothing", async () => {
    const route = apiRoute(async () => {
      throw new Error('relation "User" does not exist; password=hunter2');
    });
    const response = await route(new Request("http://x/t"));
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text).error).toBe("server_error");
    expect(text).not.toMatch(/relation|hunter2|at /);
  });
});
