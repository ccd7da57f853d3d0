import { describe, expect, it } from "vitest";
import { GET } from "./route";

describe("GET /.well-known/webhook-keys", () => {
  it("serves the webhook public keys as a JWKS", async () => {
    const response = await GET(new Request("http://localhost/.well-known/webhook-keys"));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-trace-id")).toBeTruthy();
    const body = await response.json();
    expect(body.keys.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(body.keys[0]).sort()).toEqual(["crv", "kid", "kty", "x"]);
    expect(body.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(body.keys[0].x).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(body)).not.toMatch(/"d"|PRIVATE/);
  });
});
