import { type ErrorCode, errorStatus } from "@/lib/api/http-error";

/**
 * Every error code of the HTTP API, what it means and an example answer. Keyed by the ErrorCode
 * type, so a code added to `errorStatus` fails to compile until it is documented here; /openapi.json
 * and /docs are generated from this, so the published list cannot drift from the code.
 */
export const errorCatalog: Record<ErrorCode, { meaning: string; example: string }> = {
  invalid_request: {
    meaning:
      "The request is malformed: a parameter or field is missing, of the wrong type or format, sent twice, or the body has the wrong content type, broken encoding or is too large, or the method is not served (with an Allow header). Always 400. The description names the field.",
    example: "email: must be an e-mail address such as ada@example.com",
  },
  invalid_client: {
    meaning:
      "Client authentication failed: unknown client_id, wrong client_secret, no credentials, or a client_assertion (private_key_jwt) that is malformed, replayed, expired, too long-lived, for another aud or signed by no key of the app (OAuth endpoints). The description says which.",
    example: "Client authentication failed: check client_id and client_secret.",
  },
  invalid_grant: {
    meaning:
      "The authorization code or refresh token is invalid, expired, already used, issued to another client, or does not match redirect_uri, code_verifier or user_type.",
    example: "The authorization code has already been used.",
  },
  unauthorized_client: {
    meaning: "The client may not use this grant type (client_credentials needs private_key_jwt).",
    example:
      "client_credentials needs a key: authenticate with private_key_jwt (a client_assertion signed by one of the app's keys, added on the app's page under Keys), not the client secret.",
  },
  unsupported_grant_type: {
    meaning: "grant_type is not authorization_code, refresh_token or client_credentials.",
    example: 'grant_type "password" is not supported; use authorization_code, refresh_token, client_credentials.',
  },
  invalid_scope: {
    meaning: "A requested scope is unknown or not granted to the app.",
    example: '"contacts.delete" is not a known scope.',
  },
  invalid_version: {
    meaning:
      "The Version header is missing or not one of the platform's dated versions: 2021-04-15, 2021-07-28, 2023-02-21.",
    example: "The Version header is required. Send one of: 2021-04-15, 2021-07-28, 2023-02-21.",
  },
  invalid_token: {
    meaning:
      'No Bearer token, or the token is malformed, unknown, expired, revoked, rotated out, or its app was uninstalled or its integration deleted, or its private integration\'s Expires date has passed (the description names the date). Carries WWW-Authenticate: Bearer error="invalid_token".',
    example: "The access token has expired. Get a new one from POST /oauth/token with grant_type=refresh_token.",
  },
  insufficient_scope: {
    meaning:
      'The token is valid but lacks the scope the endpoint needs; the description and the WWW-Authenticate scope="…" name it.',
    example:
      "This token lacks the contacts.write scope. Edit the private integration to add it (its token keeps working with the new scopes).",
  },
  forbidden: {
    meaning:
      "The token may not act here: a token of another agency or sub-account (also when the addressed one does not exist, so ids reveal nothing), or an agency-level token at a sub-account endpoint (use a Location token from POST /oauth/locationToken), or a private integration's guard rail refused the request: the caller's address is not in its Allowed IP addresses, or the sub-account is not one of its chosen Sub-accounts. The description names the rule.",
    example:
      "A Company token cannot call sub-account endpoints. Use a Location token: exchange the Company token at POST /oauth/locationToken, or use a sub-account private integration.",
  },
  not_found: {
    meaning: "Nothing with this id exists within the token's reach, or nothing is served at this path.",
    example: "No contact with this id exists in this token's sub-account.",
  },
  conflict: {
    meaning:
      "The change conflicts with existing data, e.g. a contact with this e-mail already exists in the sub-account (its id is in contactId).",
    example:
      "A contact with this email already exists in this sub-account; its id is in contactId. Update that contact instead.",
  },
  rate_limited: {
    meaning:
      "Over 100 requests in 10 seconds or 200,000 in a UTC day for this app or private integration on this sub-account or agency. Retry-After says how many seconds to wait.",
    example:
      "Rate limit of 100 requests per 10 seconds reached for this app or integration on this account. Retry after 4 seconds.",
  },
  server_error: {
    meaning: "A defect on our side. Nothing about the cause is shown; quote the traceId to support.",
    example: "Something went wrong on our side. Try again; if it keeps happening, contact support with the traceId.",
  },
  temporarily_unavailable: {
    meaning:
      "The service cannot reach its database for a moment: a failover (the primary stopped, its standby not yet promoted) or a restart. Always 503 with Retry-After (seconds); retry then. A write that was cut off may or may not have been made, so retry it as any lost answer (an Idempotency-Key where the endpoint takes one).",
    example: "The service cannot reach its database for a moment (a failover or a restart). Retry after 1 second.",
  },
};

export function errorExample(code: ErrorCode, status: number = errorStatus[code]) {
  return {
    error: code,
    error_description: errorCatalog[code].example,
    statusCode: status,
    traceId: "3f2c9a4e-8b1d-4c6a-9f0e-2d7b5a1c8e93",
    ...(code === "conflict"
      ? { contactId: "cm3x5con0000001", meta: { contactId: "cm3x5con0000001", matchingField: "email" } }
      : {}),
  };
}
