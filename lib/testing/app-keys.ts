import { randomUUID } from "node:crypto";
import {
  base64url,
  calculateJwkThumbprint,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWTPayload,
  SignJWT,
} from "jose";
import { db } from "@/lib/db/client";
import { appUrl } from "@/lib/env";
import { CLIENT_ASSERTION_TYPE } from "@/lib/oauth/client-assertion";

/** A key pair of an app's, its public half stored as the app's key (as the Keys section adds one). */
export interface TestAppKey {
  id: string;
  kid: string;
  alg: "ES256" | "RS256";
  privateKey: CryptoKey;
  publicJwk: Record<string, unknown>;
}

export async function addTestAppKey(appId: string, alg: "ES256" | "RS256" = "ES256"): Promise<TestAppKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const publicJwk = { ...jwk, kid, alg };
  const row = await db().appKey.create({ data: { appId, source: "generated", kid, publicJwk } });
  return { id: row.id, kid, alg, privateKey, publicJwk };
}

/** A client assertion (RFC 7523) for `clientId`, valid for 60 s; `claims` and `header` override. */
export async function clientAssertion(
  clientId: string,
  key: Pick<TestAppKey, "alg" | "kid" | "privateKey">,
  options: { claims?: JWTPayload; header?: Record<string, unknown>; now?: Date } = {},
): Promise<string> {
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT({
    iss: clientId,
    sub: clientId,
    aud: `${appUrl()}/oauth/token`,
    jti: randomUUID(),
    iat,
    exp: iat + 60,
    ...options.claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...options.header })
    .sign(key.privateKey);
}

/** The form fields of private_key_jwt. */
export const assertionFields = (assertion: string) => ({
  client_assertion_type: CLIENT_ASSERTION_TYPE,
  client_assertion: assertion,
});

/** A JWT with `alg: none` and no signature, as an attacker would send it. */
export function unsignedJwt(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (value: object) => base64url.encode(JSON.stringify(value));
  return `${part({ ...header, alg: "none" })}.${part(claims)}.`;
}

/** The app's ES256 public key as PEM bytes: the HMAC secret of an algorithm-confusion forgery (HS256). */
export async function publicKeyAsHmacSecret(key: Pick<TestAppKey, "publicJwk">): Promise<Uint8Array> {
  const publicKey = await crypto.subtle.importKey(
    "jwk",
    key.publicJwk as JsonWebKey,
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["verify"],
  );
  return new TextEncoder().encode(await exportSPKI(publicKey));
}
