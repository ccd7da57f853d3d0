import { z } from "zod";

/**
 * The OAuth endpoints' forms and answers as zod, for /openapi.json: the handlers read their forms
 * step by step, RFC 6749 style (lib/oauth/token-endpoint.ts), so these describe what they read.
 */
const userType = z.enum(["Company", "Location"]);
/** private_key_jwt (RFC 7523 §2.2): wherever client_id + client_secret authenticate an app. */
const clientAssertionFields = {
  client_assertion_type: z.literal("urn:ietf:params:oauth:client-assertion-type:jwt-bearer").optional().meta({
    description: "private_key_jwt: with client_assertion, instead of client_secret or HTTP Basic.",
  }),
  client_assertion: z.string().optional().meta({
    description:
      "private_key_jwt: a JWT signed (ES256 or RS256) by one of the app's keys, with iss and sub the client_id, aud the token endpoint's URL or the issuer, exp at most 5 minutes ahead and a jti accepted once.",
  }),
};
export const tokenForm = z.object({
  grant_type: z.enum(["authorization_code", "refresh_token", "client_credentials"]),
  client_id: z.string().optional().meta({ description: "Or HTTP Basic; optional with a client_assertion." }),
  client_secret: z.string().optional().meta({ description: "Or HTTP Basic, or private_key_jwt instead." }),
  ...clientAssertionFields,
  companyId: z.string().optional().meta({
    description: "client_credentials: the agency whose installation of the app gets a Company token.",
  }),
  locationId: z.string().optional().meta({
    description:
      "client_credentials: the sub-account (the app's own install there, or an agency install that chose it) that gets a Location token.",
  }),
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
export const tokenResponse = z.object({
  access_token: z.string().meta({ description: "ES256 JWT." }),
  token_type: z.literal("Bearer"),
  expires_in: z.union([z.literal(86399), z.literal(3600)]).meta({
    description: "86399; 3600 for an installation token (client_credentials).",
  }),
  refresh_token: z.string().optional().meta({ description: "Not in client_credentials answers." }),
  scope: z.string().meta({ description: "Space-separated." }),
  refreshTokenId: z.string().optional().meta({ description: "Not in /oauth/locationToken answers." }),
  userType,
  companyId: z.string(),
  locationId: z.string().optional().meta({ description: "Location tokens only." }),
  isBulkInstallation: z
    .boolean()
    .optional()
    .meta({ description: "true for Company, false for Location; not in /oauth/locationToken answers." }),
  userId: z.string().optional().meta({ description: "Not in client_credentials answers." }),
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
export const revokeForm = z.object({
  token: z.string(),
  token_type_hint: z.enum(["access_token", "refresh_token"]).optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  ...clientAssertionFields,
});
export const introspection = z.looseObject({
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
