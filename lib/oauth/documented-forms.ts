import { z } from "zod";

/**
 * The OAuth endpoints' forms and answers as zod, for /openapi.json: the handlers read their forms
 * step by step, RFC 6749 style (lib/oauth/token-endpoint.ts), so these describe what they read.
 */
const userType = z.enum(["Company", "Location"]);
export const tokenForm = z.object({
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
export const tokenResponse = z.object({
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
export const revokeForm = z.object({
  token: z.string(),
  token_type_hint: z.enum(["access_token", "refresh_token"]).optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
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
