import { describe, expect, it } from "vitest";
import { appUrl } from "@/lib/env";
import { callRoute } from "@/lib/oauth/testing";
import { activeSigningKey } from "@/lib/tokens/signing-keys";
import { GET as metadataGET } from "../oauth-authorization-server/route";
import { GET } from "./route";

describe("GET /.well-known/jwks.json", () => {
  it("publishes the signing key's public JWK under its kid", async () => {
    const { kid } = await activeSigningKey();
    const result = await callRoute(GET, new Request("http://localhost/.well-known/jwks.json"));
    expect(result.status).toBe(200);
    const keys = result.body.keys as Record<string, string>[];
    expect(keys.find((k) => k.kid === kid)).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    for (const key of keys) expect(key).not.toHaveProperty("d");
  });
});

describe("GET /.well-known/oauth-authorization-server (RFC 8414)", () => {
  it("describes the endpoints, grants, client auth methods and PKCE", async () => {
    const result = await callRoute(metadataGET, new Request("http://localhost/.well-known/oauth-authorization-server"));
    expect(result.status).toBe(200);
    const base = appUrl();
    expect(result.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/chooselocation`,
      token_endpoint: `${base}/oauth/token`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      revocation_endpoint: `${base}/oauth/revoke`,
      introspection_endpoint: `${base}/oauth/introspect`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      code_challenge_methods_supported: ["S256"],
    });
    expect(result.body.scopes_supported).toContain("contacts.write");
  });
});
