// One file over 250 lines on purpose: it is the catalogue of every public operation, read top to
// bottom like the API reference it generates; a test checks it against app/**/route.ts as a whole.
import { z } from "zod";
import type { ErrorCode } from "@/lib/api/http-error";
import { apiVersions } from "@/lib/api/version";
import { contactSchema, newContactSchema } from "@/lib/contacts/contacts";
import { locationSchema } from "@/lib/locations/get-location";
import { allScopes, type Scope } from "@/lib/scopes";
import { missedEventsPageSchema, missedEventsQuerySchema } from "@/lib/webhooks/missed-events";

/**
 * Every public route of the app as an OpenAPI operation. The token endpoints use the very zod
 * schemas their handlers parse and answer with; the OAuth endpoints (which read their forms step by
 * step, RFC 6749 style) are described here with zod too. A test walks app/**\/route.ts and fails
 * when a served method is missing from this list.
 *
 * Left out as internal, on purpose: /api/auth/* (next-auth's sign-in plumbing for the admin
 * screens), /api/operator (the operator console's endpoint) and the catch-all JSON 404.
 */

/** client: HTTP Basic or the form; basic: HTTP Basic only. */
export type Auth = "bearer" | "client" | "basic" | "none";

export interface Operation {
  method: "get" | "post";
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  auth: Auth;
  /** Needs the Version header. */
  version?: boolean;
  /** Counted by the API rate limits (and so carries the X-RateLimit-* headers). */
  rateLimited?: boolean;
  scope?: Scope;
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  body?: { contentType: "application/json" | "application/x-www-form-urlencoded"; name: string; schema: z.ZodType };
  success: {
    status: number;
    description: string;
    contentType?: string;
    name?: string;
    schema?: z.ZodType;
  };
  /** The error codes this operation answers with, and what each means here, in check order. */
  errors: Partial<Record<ErrorCode, string>>;
  /** Error screens (text/html) of a screen operation, by status. */
  screenErrors?: Record<number, string>;
}

const id = (example: string, description?: string) => z.string().meta({ examples: [example], description });
const jwk = z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string().optional(), use: z.string().optional() });
const jwks = z.object({ keys: z.array(jwk) });

const revokeCredentialsRequest = z
  .object({
    credentials: z
      .array(z.string())
      .min(1)
      .max(100)
      .meta({
        description: "1 to 100 private-integration (pit-…) or refresh tokens.",
        examples: [["pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"]],
      }),
  })
  .meta({ examples: [{ credentials: ["pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c"] }] });
const revokeCredentialsAnswer = z
  .object({ received: z.number().int().min(1).max(100) })
  .meta({ examples: [{ received: 1 }] });
const secretScanningReport = z
  .array(
    z.object({
      token: z.string(),
      type: z.string(),
      url: z.string().optional(),
      source: z.string().optional(),
    }),
  )
  .min(1)
  .max(100)
  .meta({
    examples: [
      [
        {
          token: "pit-3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c",
          type: "platform_private_integration_token",
          url: "https://github.com/octo-org/docs/issues/12",
          source: "issue",
        },
      ],
    ],
  });
const secretScanningLabels = z
  .array(
    z.object({
      token_hash: z.string().regex(/^[0-9a-f]{64}$/),
      token_type: z.string(),
      label: z.enum(["true_positive", "false_positive"]),
    }),
  )
  .meta({
    examples: [
      [
        {
          token_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
          token_type: "platform_private_integration_token",
          label: "true_positive",
        },
      ],
    ],
  });

const userType = z.enum(["Company", "Location"]);
const tokenForm = z.object({
  grant_type: z.enum(["authorization_code", "refresh_token"]),
  client_id: z.string().optional().meta({ description: "Or HTTP Basic." }),
  client_secret: z.string().optional().meta({ description: "Or HTTP Basic." }),
  code: z
    .string()
    .optional()
    .meta({ description: "authorization_code: the code from the redirect; single use, 10 minutes." }),
  user_type: userType.optional().meta({
    description:
      "Optional. When sent it must match the installation's level (Company or Location), else invalid_grant; when absent the installation's level is used, so RFC 6749 clients that send only the standard parameters work unchanged.",
  }),
  redirect_uri: z
    .string()
    .optional()
    .meta({ description: "authorization_code: must equal the one of the authorization request." }),
  code_verifier: z
    .string()
    .optional()
    .meta({ description: "authorization_code: the PKCE verifier, when a code_challenge was sent." }),
  refresh_token: z.string().optional().meta({
    description:
      "refresh_token: single use; rotates. Presented again by the same client within REFRESH_TOKEN_REUSE_SECONDS (default 30; 0 turns it off) of its first use: a new pair of the same family, nothing revoked. Later: reuse, which revokes its family.",
  }),
});
const tokenResponse = z.object({
  access_token: z.string().meta({ description: "ES256 JWT." }),
  token_type: z.literal("Bearer"),
  expires_in: z.literal(86399),
  refresh_token: z.string(),
  scope: z.string().meta({ description: "Space-separated." }),
  refreshTokenId: z.string().optional().meta({ description: "Not in /oauth/locationToken answers." }),
  userType,
  companyId: z.string(),
  locationId: z.string().optional().meta({ description: "Location tokens only." }),
  isBulkInstallation: z
    .boolean()
    .optional()
    .meta({ description: "true for Company, false for Location; not in /oauth/locationToken answers." }),
  userId: z.string(),
  approvedLocations: z
    .array(z.string())
    .optional()
    .meta({ description: "Company tokens: the sub-accounts chosen at install." }),
  approveAllLocations: z
    .boolean()
    .optional()
    .meta({ description: "Company tokens: true when the installer chose all sub-accounts." }),
  installToFutureLocations: z.boolean().optional().meta({
    description:
      "Company tokens: true when sub-accounts created later get the app too (an INSTALL event each, /oauth/locationToken works for them).",
  }),
  traceId: z.string().optional().meta({ description: "/oauth/locationToken answers only." }),
});
const revokeForm = z.object({
  token: z.string(),
  token_type_hint: z.enum(["access_token", "refresh_token"]).optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});
const introspection = z.looseObject({
  active: z.boolean(),
  token_type: z.string().optional(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  sub: z.string().optional(),
  iss: z.string().optional(),
  jti: z.string().optional(),
  iat: z.number().int().optional(),
  exp: z.number().int().optional(),
  authClass: userType.optional(),
  authClassId: z.string().optional(),
  companyId: z.string().optional(),
  locationId: z.string().optional(),
});

const bearer401 =
  "The Bearer token is missing, malformed, unknown, expired or revoked, or its private integration's Expires date has passed (WWW-Authenticate says which).";
/** Every endpoint a private-integration token may call: its Allowed IP addresses apply. */
const addressRefusal = "Or a private integration's Allowed IP addresses do not include the caller's address.";
const tokenErrors = (scope: Scope, forbidden: string, extra: Partial<Record<ErrorCode, string>> = {}) => ({
  invalid_version: "Version header missing or not an accepted date.",
  invalid_token: bearer401,
  rate_limited: "Over the app's or integration's limits on this account.",
  ...("forbiddenFirst" in extra ? {} : {}),
  forbidden: `${forbidden} ${addressRefusal}`,
  insufficient_scope: `The token lacks ${scope}.`,
  ...extra,
});

export const operations: Operation[] = [
  {
    method: "get",
    path: "/locations/{locationId}",
    operationId: "getLocation",
    tag: "Sub-accounts",
    summary: "Get a sub-account",
    description:
      "Allowed: a Location token or sub-account private integration of that sub-account, a Company token or agency private integration of its agency. Anything else is 403 forbidden whether or not the sub-account exists.",
    auth: "bearer",
    version: true,
    rateLimited: true,
    scope: "locations.readonly",
    pathParams: z.object({ locationId: id("cm3x5loc0000001") }),
    success: {
      status: 200,
      description: "The sub-account.",
      name: "LocationResponse",
      schema: z.object({ location: locationSchema }),
    },
    errors: tokenErrors(
      "locations.readonly",
      "The token is not of this sub-account or its agency, or the sub-account does not exist, or it is an agency private integration whose chosen Sub-accounts do not include it.",
    ),
  },
  {
    method: "post",
    path: "/contacts/",
    operationId: "createContact",
    tag: "Contacts",
    summary: "Create a contact",
    description:
      "Allowed: a Location token or sub-account private integration of the body's locationId. A Company token or agency private integration gets 403 forbidden: exchange it for a Location token at POST /oauth/locationToken. POST /contacts answers the same, without a redirect.",
    auth: "bearer",
    version: true,
    rateLimited: true,
    scope: "contacts.write",
    body: { contentType: "application/json", name: "NewContact", schema: newContactSchema },
    success: {
      status: 201,
      description: "The contact was created.",
      name: "ContactResponse",
      schema: z.object({ contact: contactSchema }),
    },
    errors: tokenErrors(
      "contacts.write",
      "An agency-level token (checked before the scope), or locationId is not the token's sub-account (checked after the body).",
      {
        invalid_request: "The body is not JSON, has a missing, extra or invalid field (named), or is over 1 MB.",
        conflict: "A contact with this e-mail exists in the sub-account; contactId is its id.",
      },
    ),
  },
  {
    method: "get",
    path: "/contacts/{contactId}",
    operationId: "getContact",
    tag: "Contacts",
    summary: "Get a contact",
    description: "A contact of the token's own sub-account; any other id is 404.",
    auth: "bearer",
    version: true,
    rateLimited: true,
    scope: "contacts.readonly",
    pathParams: z.object({ contactId: id("cm3x5con0000001") }),
    success: {
      status: 200,
      description: "The contact.",
      name: "ContactResponse",
      schema: z.object({ contact: contactSchema }),
    },
    errors: tokenErrors("contacts.readonly", "An agency-level token: use a Location token.", {
      not_found: "No contact with this id in the token's sub-account.",
    }),
  },
  {
    method: "get",
    path: "/oauth/chooselocation",
    operationId: "authorize",
    tag: "OAuth",
    summary: "Install screen (authorization endpoint)",
    description:
      "An HTML screen for a signed-in user (RFC 6749 §4.1.1). On Install the browser goes to redirect_uri?code=…&state=…; on Cancel to redirect_uri?error=access_denied&state=…. A bad client_id or redirect_uri shows an error screen and never redirects.",
    auth: "none",
    query: z.object({
      response_type: z.literal("code"),
      client_id: z.string(),
      redirect_uri: z.string().meta({ description: "Exactly one registered for the app." }),
      scope: z
        .string()
        .optional()
        .meta({ description: "Space-separated subset of the app's scopes; absent means all." }),
      state: z.string().optional(),
      code_challenge: z.string().optional(),
      code_challenge_method: z.literal("S256").optional(),
    }),
    success: { status: 200, description: "The install screen.", contentType: "text/html" },
    errors: {},
    screenErrors: {
      400: "An error screen: the client_id is unknown or the redirect_uri is not one registered for the app. It never redirects.",
      403: "An error screen: the app is Agency only and the signed-in person is not an agency owner or admin.",
    },
  },
  {
    method: "post",
    path: "/oauth/token",
    operationId: "token",
    tag: "OAuth",
    summary: "Exchange a code or refresh token for tokens",
    description:
      "RFC 6749 §4.1.3 and §6. A code used twice fails and revokes every token issued from it. A refresh token is single use and rotates; the same client presenting a used one again within REFRESH_TOKEN_REUSE_SECONDS (default 30 s after its first use; 0 turns the window off) gets 200 with another working pair of the same family and nothing is revoked (a retry after a lost response, or two processes of one app refreshing at once). Presented after the window it is reuse: 400 invalid_grant and its whole family is revoked. The window never revives an expired or revoked refresh token. Tokens carry only the scopes the installation grants now. Answers carry Cache-Control: no-store.",
    auth: "client",
    body: { contentType: "application/x-www-form-urlencoded", name: "TokenRequest", schema: tokenForm },
    success: { status: 200, description: "Tokens.", name: "TokenResponse", schema: tokenResponse },
    errors: {
      invalid_request: "Not a form body, a parameter missing or sent twice.",
      unsupported_grant_type: "grant_type is not authorization_code or refresh_token.",
      invalid_client: "Client authentication failed.",
      invalid_grant:
        "The code or refresh token is invalid, expired, revoked, used (a refresh token: after its reuse window), or does not match.",
      unauthorized_client: "The client may not use this grant.",
      invalid_scope: "A requested scope is not allowed.",
    },
  },
  {
    method: "post",
    path: "/oauth/locationToken",
    operationId: "locationToken",
    tag: "OAuth",
    summary: "Exchange a Company token for a Location token",
    description:
      "The Company access token must be of companyId and carry oauth.write; the app must be installed on locationId. The Location token's scope is the installation's sub-account-level scopes. Counted by the rate limits in the bucket of the app on the agency (the one its Company-token API calls use), after the token is verified and before its level, scope and body. A revocation, uninstall or re-install that runs at the same time either makes the exchange fail or revokes the Location token it issued.",
    auth: "bearer",
    version: true,
    rateLimited: true,
    scope: "oauth.write",
    body: {
      contentType: "application/x-www-form-urlencoded",
      name: "LocationTokenRequest",
      schema: z.object({ companyId: z.string(), locationId: z.string() }),
    },
    success: {
      status: 200,
      description: "A Location token.",
      name: "TokenResponse",
      schema: tokenResponse,
    },
    errors: {
      invalid_version: "Version header missing or not an accepted date.",
      invalid_token: bearer401,
      rate_limited: "Over the app's limits on this agency.",
      forbidden:
        "A Location or private-integration token, another company, a sub-account not of the company, or the app not installed there.",
      insufficient_scope: "The Company token lacks oauth.write.",
      invalid_request: "Not a form body, or companyId or locationId missing.",
    },
  },
  {
    method: "get",
    path: "/oauth/installedLocations",
    operationId: "installedLocations",
    tag: "OAuth",
    summary: "Sub-accounts the app is installed on",
    description:
      "For a Company access token with oauth.readonly, of companyId. Counted by the rate limits in the bucket of the app on the agency, after the token is verified and before its level, scope and query.",
    auth: "bearer",
    version: true,
    rateLimited: true,
    scope: "oauth.readonly",
    query: z.object({ companyId: z.string(), appId: z.string().optional() }),
    success: {
      status: 200,
      description: "The sub-accounts.",
      name: "InstalledLocations",
      schema: z.object({
        locations: z.array(z.object({ id: z.string(), name: z.string(), isInstalled: z.boolean() })),
        count: z.number().int(),
        traceId: z.string(),
      }),
    },
    errors: {
      invalid_version: "Version header missing or not an accepted date.",
      invalid_token: bearer401,
      rate_limited: "Over the app's limits on this agency.",
      forbidden: "Not a Company access token, or companyId/appId is not the token's.",
      insufficient_scope: "The Company token lacks oauth.readonly.",
      invalid_request: "companyId missing.",
    },
  },
  {
    method: "post",
    path: "/oauth/revoke",
    operationId: "revoke",
    tag: "OAuth",
    summary: "Revoke a token (RFC 7009)",
    description:
      "An access token alone, or a refresh token with its whole grant. An unknown token is 200 too (RFC 7009 §2.2).",
    auth: "client",
    body: { contentType: "application/x-www-form-urlencoded", name: "RevokeRequest", schema: revokeForm },
    success: { status: 200, description: "Revoked (or never valid)." },
    errors: { invalid_request: "Not a form body, or token missing.", invalid_client: "Client authentication failed." },
  },
  {
    method: "post",
    path: "/oauth/introspect",
    operationId: "introspect",
    tag: "OAuth",
    summary: "Introspect a token (RFC 7662)",
    description: 'The client\'s own tokens only; anything else is {"active": false}.',
    auth: "client",
    body: { contentType: "application/x-www-form-urlencoded", name: "IntrospectRequest", schema: revokeForm },
    success: { status: 200, description: "The token's state.", name: "Introspection", schema: introspection },
    errors: { invalid_request: "Not a form body, or token missing.", invalid_client: "Client authentication failed." },
  },
  {
    method: "post",
    path: "/credentials/revoke",
    operationId: "revokeLeakedCredentials",
    tag: "Leaked tokens",
    summary: "Revoke leaked tokens (anyone who holds them)",
    description:
      "Unauthenticated: whoever holds a private-integration token (pit-…) or a refresh token may revoke it. Each live one stops working at once on every instance: a private integration becomes Revoked (reported as leaked; only Rotate and expire this token now brings it back with a new token), a refresh token takes its whole family with it. Every revocation is audited and notified. The answer is 202 with the number received, whatever the tokens were: it never says which were valid. At most 60 calls per hour per client address, this endpoint and /credentials/github-secret-scanning together, every call counted.",
    auth: "none",
    body: { contentType: "application/json", name: "RevokeCredentialsRequest", schema: revokeCredentialsRequest },
    success: {
      status: 202,
      description: "Received; every live token among them is revoked.",
      name: "RevokeCredentialsAnswer",
      schema: revokeCredentialsAnswer,
    },
    errors: {
      rate_limited: "More than 60 calls this hour from this address (Retry-After: seconds to the next hour).",
      invalid_request: "Not JSON, or credentials is not an array of 1 to 100 tokens (strings).",
    },
  },
  {
    method: "post",
    path: "/credentials/github-secret-scanning",
    operationId: "githubSecretScanning",
    tag: "Leaked tokens",
    summary: "GitHub secret scanning partner reports",
    description:
      "GitHub's secret scanning partner format: a JSON array of {token, type, url, source}, signed with ECDSA P-256 and SHA-256 over the raw body; the key is named in the Github-Public-Key-Identifier header and the base64 DER signature is in Github-Public-Key-Signature. Keys come from SECRET_SCANNING_KEYS_URL (cached; an unknown key id fetches them again, at most once a second). The answer labels each token: true_positive when it was live (it is now revoked, as by /credentials/revoke), false_positive otherwise, with the SHA-256 of the token in hex. 404 while SECRET_SCANNING_KEYS_URL is unset. Counted with /credentials/revoke: 60 calls per hour per client address.",
    auth: "none",
    body: { contentType: "application/json", name: "SecretScanningReport", schema: secretScanningReport },
    success: {
      status: 200,
      description: "One label per reported token, in the order reported.",
      name: "SecretScanningLabels",
      schema: secretScanningLabels,
    },
    errors: {
      rate_limited: "More than 60 calls this hour from this address (Retry-After: seconds to the next hour).",
      not_found: "SECRET_SCANNING_KEYS_URL is not set on this server.",
      invalid_request: "Not JSON, or not an array of 1 to 100 {token, type, url, source}.",
      invalid_client:
        "The signature headers are missing, name no published key, or the signature does not verify over the body.",
    },
  },
  {
    method: "get",
    path: "/webhooks/events",
    operationId: "listWebhookEvents",
    tag: "Webhooks",
    summary: "Missed events: the app's events, oldest first",
    description:
      "Authenticated with the app's client_id and client_secret as HTTP Basic. Lists the app's webhook events (delivered, pending or failed) oldest first, each with its payload exactly as delivered. Pass nextCursor as after for the next page; it is absent at the end. To resume later, pass the webhookId of the last event processed as after. An event is listed once every transaction that began before its own has ended, so a cursor never skips one. Events are kept at least 30 days.",
    auth: "basic",
    query: missedEventsQuerySchema,
    success: {
      status: 200,
      description: "A page of events.",
      name: "WebhookEventsPage",
      schema: missedEventsPageSchema,
    },
    errors: {
      invalid_client: "No HTTP Basic credentials, or they do not match an app (WWW-Authenticate: Basic).",
      invalid_request:
        "after is not a cursor or webhookId of this app, limit is not 1 to 500, or a parameter is unknown or repeated.",
    },
  },
  {
    method: "get",
    path: "/.well-known/jwks.json",
    operationId: "jwks",
    tag: "Discovery",
    summary: "Access-token signing keys (JWKS)",
    description:
      "The ES256 public keys of every access token that may still be alive, by kid. After a rotation (signing-key:rotate, or every SIGNING_KEY_ROTATION_DAYS) the old key stays until every token it signed has expired. Cache-Control: public, max-age=300: fetch again at least every five minutes, and at once on an unknown kid.",
    auth: "none",
    success: { status: 200, description: "JWKS.", name: "Jwks", schema: jwks },
    errors: {},
  },
  {
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    operationId: "authorizationServerMetadata",
    tag: "Discovery",
    summary: "Authorization server metadata (RFC 8414)",
    description: "Endpoints, grant types, auth methods and every scope.",
    auth: "none",
    success: {
      status: 200,
      description: "Metadata.",
      name: "AuthorizationServerMetadata",
      schema: z.looseObject({
        issuer: z.string(),
        authorization_endpoint: z.string(),
        token_endpoint: z.string(),
        jwks_uri: z.string(),
        scopes_supported: z.array(z.enum(allScopes as [Scope, ...Scope[]])),
      }),
    },
    errors: {},
  },
  {
    method: "get",
    path: "/.well-known/webhook-keys",
    operationId: "webhookKeys",
    tag: "Discovery",
    summary: "Webhook signing keys (Ed25519 JWKS)",
    description:
      "Verify webhook-signature v1a with these (Standard Webhooks); v1 is HMAC under the app's webhook secret. For 7 days after a webhook-key rotation both keys sign and are listed.",
    auth: "none",
    success: { status: 200, description: "JWKS of OKP keys.", name: "WebhookKeys", schema: jwks },
    errors: {},
  },
  {
    method: "get",
    path: "/.well-known/webhook-public-key.pem",
    operationId: "webhookPublicKeyPem",
    tag: "Discovery",
    summary: "Webhook signing key (PEM)",
    description:
      "The Ed25519 key x-ghl-signature is under now, as an SPKI PEM: verify x-ghl-signature (Ed25519 over the raw body bytes) with it, as the platform's SDK does. After a webhook-key rotation it stays the old key for 7 days, then the new one.",
    auth: "none",
    success: { status: 200, description: "SPKI PEM.", contentType: "application/x-pem-file" },
    errors: {},
  },
  {
    method: "get",
    path: "/api/health",
    operationId: "health",
    tag: "Service",
    summary: "Liveness",
    description: "No database, no auth.",
    auth: "none",
    success: { status: 200, description: "Up.", name: "Health", schema: z.object({ status: z.literal("ok") }) },
    errors: {},
  },
  {
    method: "get",
    path: "/openapi.json",
    operationId: "openapi",
    tag: "Service",
    summary: "This document",
    description: "OpenAPI 3.1, generated from the routes' zod schemas. Readable at /docs.",
    auth: "none",
    success: { status: 200, description: "The OpenAPI document.", contentType: "application/json" },
    errors: {},
  },
];

export { apiVersions };
