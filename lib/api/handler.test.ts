import { describe, expect, it } from "vitest";
import { apiRoute, otherMethods } from "./handler";
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

  it("answers methods a route does not serve with 400 invalid_request (SPEC.md's status for it) and Allow", async () => {
    const { DELETE } = otherMethods("GET", "POST");
    const response = await DELETE(new Request("http://x/t", { method: "DELETE" }));
    expect(response.status).toBe(400);
    expect(response.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    const body = await response.json();
    expect(body).toMatchObject({ error: "invalid_request", statusCode: 400 });
    expect(body.error_description).toMatch(/Use GET or POST/);
  });

  it("answers OPTIONS with 204, Allow and a trace id", async () => {
    const { OPTIONS } = otherMethods("POST");
    const response = await OPTIONS(new Request("http://x/t", { method: "OPTIONS" }));
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    expect(response.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
