import { HttpError } from "@/lib/api/http-error";
import { readForm } from "@/lib/api/parse";
import { toHttpError } from "@/lib/api/refusal-to-http";
import { currentTime } from "@/lib/clock";
import { countTokenError, countTokenIssued } from "@/lib/metrics/metrics";
import { authenticateCachedClient, authenticateClient, ClientChanged } from "./client-auth";
import { invalidClient, invalidRequest, unsupportedGrantType } from "./errors";
import { authorizationCodeGrant, type GrantContext } from "./grants/authorization-code";
import { clientCredentialsGrant } from "./grants/client-credentials";
import { refreshTokenGrant } from "./grants/refresh-token";

/**
 * POST /oauth/token as node-oidc-provider reads it: an ordered checklist, then one module per
 * grant. Each step throws the RFC 6749 §5.2 error it stands for.
 *   1. the body is application/x-www-form-urlencoded, each parameter at most once (readForm)
 *   2. grant_type is present and one we support
 *   3. the client authenticates (form or HTTP Basic, the app maybe from the read cache; or a
 *      client_assertion, private_key_jwt, whose jti is consumed on the database)
 *   4. the grant module checks its own parameters, consumes the code or refresh token and issues
 * `Cache-Control: no-store` is set on every answer by the route (RFC 6749 §5.1).
 */

const grants = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
} as const satisfies Record<string, (ctx: GrantContext) => Promise<Record<string, unknown>>>;

export type SupportedGrantType = keyof typeof grants;
export const supportedGrantTypes = Object.keys(grants) as SupportedGrantType[];

/** RFC 6749 §3.2: parameters sent without a value are treated as omitted. */
export async function readOAuthForm(request: Request): Promise<Record<string, string>> {
  const form = await readForm(request);
  return Object.fromEntries(Object.entries(form).filter(([, value]) => value !== ""));
}

function checkGrantType(form: Record<string, string>): SupportedGrantType {
  const grantType = form.grant_type;
  if (!grantType) {
    throw invalidRequest(`grant_type is required: use ${supportedGrantTypes.join(", ")}.`);
  }
  if (!Object.hasOwn(grants, grantType)) {
    throw unsupportedGrantType(
      `grant_type "${grantType.slice(0, 40)}" is not supported; use ${supportedGrantTypes.join(", ")}.`,
    );
  }
  return grantType as SupportedGrantType;
}

/**
 * The token endpoint's answer. Every token issued and every refusal is counted in the metrics (when
 * on); one async function, since each promise more costs the refresh's hot path.
 */
export async function tokenEndpoint(request: Request, now = currentTime()): Promise<Record<string, unknown>> {
  let grantType: SupportedGrantType | undefined;
  try {
    const form = await readOAuthForm(request);
    grantType = checkGrantType(form);
    // The app may come from the read cache: each grant's statement checks that the app still accepts
    // the secret's hash, and when it does not the client is authenticated again against the database.
    // An installation token's statement consumes the assertion's jti itself (one round trip).
    const deferAssertion = grantType === "client_credentials";
    const client =
      authenticateCachedClient(request, form, now) ??
      (await authenticateClient(request, form, { cached: true, now, deferAssertion }));
    let body: Record<string, unknown> | undefined;
    try {
      body = await grants[grantType]({ form, client, now });
    } catch (error) {
      if (!(error instanceof ClientChanged)) throw error;
    }
    if (body === undefined) {
      const fresh = await authenticateClient(request, form, { now, deferAssertion });
      try {
        body = await grants[grantType]({ form, client: fresh, now });
      } catch (error) {
        if (!(error instanceof ClientChanged)) throw error;
        throw invalidClient(
          "The client secret was just replaced or revoked. Send the app's current secret.",
          "secret changed",
        );
      }
    }
    countTokenIssued(grantType, body.userType);
    return body;
  } catch (error) {
    countTokenError(grantType, tokenErrorCode(error));
    throw error;
  }
}

/** The SPEC.md code a thrown error is answered with. */
export function tokenErrorCode(error: unknown): string {
  const answered = toHttpError(error);
  return answered instanceof HttpError ? answered.code : "server_error";
}
