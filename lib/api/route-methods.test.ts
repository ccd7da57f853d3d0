import { describe, expect, it } from "vitest";
import { apiRoute, json } from "./handler";
import { routeMethods, servedMethods } from "./route-methods";

const ok = apiRoute(async () => json({ ok: true }));
/** `handler`'s answer to a request with `method`. */
const callWithMethod = (handler: (request: Request) => Response | Promise<Response>, method: string) =>
  handler(new Request("http://x/t", { method }));

describe("routeMethods: a route's methods written once", () => {
  it("answers methods a route does not serve with 400 invalid_request (SPEC.md's status for it) and Allow", async () => {
    const { DELETE } = routeMethods({ POST: ok, GET: ok });
    const response = await callWithMethod(DELETE, "DELETE");
    expect(response.status).toBe(400);
    expect(response.headers.get("allow")).toBe("GET, POST, HEAD, OPTIONS");
    const body = await response.json();
    expect(body).toMatchObject({ error: "invalid_request", statusCode: 400, traceId: expect.any(String) });
    expect(body.error_description).toBe("DELETE is not served here. Use GET or POST.");
  });

  it("answers OPTIONS with 204, Allow and a trace id", async () => {
    const { OPTIONS } = routeMethods({ POST: ok });
    const response = await callWithMethod(OPTIONS, "OPTIONS");
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("POST, OPTIONS");
    expect(response.headers.get("x-trace-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(OPTIONS.allow).toBe("POST, OPTIONS");
  });

  it("derives Allow from the served keys, in a fixed order, with HEAD only beside GET", () => {
    expect(routeMethods({ DELETE: ok, PATCH: ok }).OPTIONS.allow).toBe("PATCH, DELETE, OPTIONS");
    expect(routeMethods({ GET: ok }).OPTIONS.allow).toBe("GET, HEAD, OPTIONS");
    expect(routeMethods({ PUT: ok, GET: ok, DELETE: ok }).OPTIONS.allow).toBe("GET, PUT, DELETE, HEAD, OPTIONS");
  });

  it("returns the served handlers as given and marks every other answer unserved; never HEAD", () => {
    const methods = routeMethods({ GET: ok, PATCH: ok });
    expect(methods.GET).toBe(ok);
    expect(methods.PATCH).toBe(ok);
    expect(Object.keys(methods).sort()).toEqual(["DELETE", "GET", "OPTIONS", "PATCH", "POST", "PUT"]);
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"] as const) expect(methods[method].unserved).toBe(true);
    expect(servedMethods(methods)).toEqual(["GET", "PATCH"]);
  });

  it("takes only methods, and at least one (the types refuse the rest)", () => {
    // Never run: the type checker is the test (tsc fails when a line stops being an error).
    const refusedByTypes = () => [
      // @ts-expect-error OPTIONS is routeMethods' own
      routeMethods({ GET: ok, OPTIONS: ok }),
      // @ts-expect-error a misspelt method
      routeMethods({ GET: ok, PACTH: ok }),
      // @ts-expect-error no method served
      routeMethods({}),
    ];
    expect(refusedByTypes).toBeTypeOf("function");
    expect(() => routeMethods({ GET: undefined })).toThrow(/at least one/);
  });
});
