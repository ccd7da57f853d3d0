import { describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import { apiClient } from "@/lib/testing/api-client";

const api = apiClient(apiRoutes);

describe("GET /.well-known/webhook-keys", () => {
  it("serves the webhook public keys as a JWKS", async () => {
    const { status, headers, body } = await api.get("/.well-known/webhook-keys");
    expect(status).toBe(200);
    expect(headers.get("x-trace-id")).toBeTruthy();
    expect(body.keys.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(body.keys[0]).sort()).toEqual(["crv", "kid", "kty", "x"]);
    expect(body.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(body.keys[0].x).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(body)).not.toMatch(/"d"|PRIVATE/);
  });
});
