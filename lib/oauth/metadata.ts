import { appUrl } from "@/lib/env";
import { allScopes } from "@/lib/scopes";
import { CLIENT_ASSERTION_ALGORITHMS } from "./client-assertion";

/** GET /.well-known/oauth-authorization-server (RFC 8414 §2). */
export function authorizationServerMetadata() {
  const base = appUrl();
  const clientAuth = ["client_secret_basic", "client_secret_post", "private_key_jwt"];
  // RFC 8414 §2: required whenever private_key_jwt is listed for the endpoint.
  const signingAlgs = [...CLIENT_ASSERTION_ALGORITHMS];
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/chooselocation`,
    token_endpoint: `${base}/oauth/token`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    scopes_supported: allScopes,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
    token_endpoint_auth_methods_supported: clientAuth,
    token_endpoint_auth_signing_alg_values_supported: signingAlgs,
    revocation_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_signing_alg_values_supported: signingAlgs,
    introspection_endpoint_auth_methods_supported: clientAuth,
    introspection_endpoint_auth_signing_alg_values_supported: signingAlgs,
    code_challenge_methods_supported: ["S256"],
  };
}
