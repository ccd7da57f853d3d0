import { type KeyObject, randomUUID, sign } from "node:crypto";

/**
 * Client assertions (RFC 7523 §2.2, private_key_jwt) for the installation-token scenarios, made the
 * same way for us and for the peer: ES256, signed by node:crypto (synchronous, so autocannon's
 * `setupRequest` can take one), `iss` = `sub` = the client_id, `exp` 5 minutes ahead, a fresh `jti`
 * each (both servers refuse a replay).
 *
 * Signed before each turn (`fill`), so the signing is not in the turn's measured time: the load
 * generator shares the cores with the servers. When the turn outruns its supply, or the supply grows
 * older than `FRESH_MS`, the rest are signed on the fly, counted in `signedDuringLoad`.
 */

/** RFC 7523's client_assertion_type (as lib/oauth/client-assertion.ts, not imported: it opens the database). */
export const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** Pre-signed assertions per second of load: the rate the token supplies are sized for (scripts/bench.ts). */
export const ASSERTIONS_PER_SECOND = 5_000;
/** Both servers accept an assertion until `exp` (5 minutes, the most SPEC allows): one older than this is not handed out. */
const FRESH_MS = 240_000;
const LIFETIME_SECONDS = 300;

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

export interface AssertionKey {
  /** The app key's private half (ES256, P-256). */
  privateKey: KeyObject;
  kid: string;
}

export class AssertionSupply {
  private readonly header: string;
  private supply: string[] = [];
  private used = 0;
  private signedAt = 0;
  /** Assertions signed while a load ran (the pre-signed supply used up or too old). */
  signedDuringLoad = 0;

  constructor(
    private readonly key: AssertionKey,
    private readonly clientId: string,
    /** The token endpoint's URL as the server expects it in `aud`. */
    private readonly audience: string,
  ) {
    this.header = base64url(JSON.stringify({ alg: "ES256", kid: key.kid, typ: "JWT" }));
  }

  /** One assertion, signed now. */
  sign(nowMs = Date.now()): string {
    const iat = Math.floor(nowMs / 1000);
    const claims = {
      iss: this.clientId,
      sub: this.clientId,
      aud: this.audience,
      jti: randomUUID(),
      iat,
      exp: iat + LIFETIME_SECONDS,
    };
    const input = `${this.header}.${base64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(input), { key: this.key.privateKey, dsaEncoding: "ieee-p1363" });
    return `${input}.${signature.toString("base64url")}`;
  }

  /** Replaces the supply with enough fresh assertions for `seconds` of load. */
  fill(seconds: number): void {
    const count = Math.ceil(seconds * ASSERTIONS_PER_SECOND);
    const now = Date.now();
    this.supply = Array.from({ length: count }, () => this.sign(now));
    this.used = 0;
    this.signedAt = now;
    this.signedDuringLoad = 0;
  }

  /** The next unused assertion. */
  take(): string {
    if (this.used < this.supply.length && Date.now() - this.signedAt < FRESH_MS) {
      return this.supply[this.used++] as string;
    }
    this.signedDuringLoad++;
    return this.sign();
  }
}
