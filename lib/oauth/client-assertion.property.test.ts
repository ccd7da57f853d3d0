import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { type JWTPayload, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "@/app/route-table";
import type { CreatedApp } from "@/lib/apps/registry";
import { appUrl } from "@/lib/env";
import { apiClient } from "@/lib/testing/api-client";
import { addTestAppKey, publicKeyAsHmacSecret, type TestAppKey, unsignedJwt } from "@/lib/testing/app-keys";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { install, makeApp } from "@/lib/testing/oauth";
import { withBurstLimit } from "@/lib/testing/rate-limits";
import { CLIENT_ASSERTION_TYPE } from "./client-assertion";

/**
 * private_key_jwt's rules as one property: an assertion SIGNED by a key of any kind (the app's ES256
 * or RS256 key, a stranger's key under the app's kid, HS256 keyed with the public key, none), with
 * any of the claims' and header's shapes, is accepted exactly when every rule of SPEC.md › Apps
 * that never lose an install holds, and is otherwise refused with a 4xx that says why, never a 5xx.
 * A refusal consumes nothing: the same `jti` in a good assertion is then accepted. Driven through
 * the two ways a `jti` is consumed: an installation token (in its issuing statement) and an
 * introspection (in its own statement).
 */

const api = apiClient(apiRoutes);
let agency: TestAgency;
let app: CreatedApp;
let other: CreatedApp;
let es: TestAppKey;
let rs: TestAppKey;
let stranger: TestAppKey;
let hmacSecret: Uint8Array;
const accepted: string[] = [];
// Every accepted installation token counts against the API's burst limit: not what is tested here.
withBurstLimit(0);

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
  other = await makeApp(agency.company.id);
  es = await addTestAppKey(app.app.id, "ES256");
  rs = await addTestAppKey(app.app.id, "RS256");
  stranger = await addTestAppKey(other.app.id, "ES256");
  await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [agency.locations[0]!.id] });
  hmacSecret = await publicKeyAsHmacSecret(es);
});

/** Each field's choices; `valid` lists the ones the rules accept. */
const choices = {
  type: { all: ["jwt-bearer", "saml2-bearer", "empty", "absent"], valid: ["jwt-bearer"] },
  signer: { all: ["es", "rs", "stranger", "hs256", "none"], valid: ["es", "rs"] },
  kid: { all: ["own", "absent", "unknown", "crossed"], valid: ["own", "absent"] },
  iss: { all: ["client", "other-client", "unknown", "absent", "number"], valid: ["client"] },
  sub: { all: ["same", "other", "absent"], valid: ["same"] },
  formClientId: { all: ["absent", "same", "other"], valid: ["absent", "same"] },
  aud: {
    all: [
      "token-endpoint",
      "issuer",
      "array-with-endpoint",
      "elsewhere",
      "array-elsewhere",
      "empty-array",
      "absent",
      "number",
    ],
    valid: ["token-endpoint", "issuer", "array-with-endpoint"],
  },
  // Seconds from now, clear of the 30 s tolerance's edges (the server reads its clock a moment later).
  exp: { all: ["-120", "-10", "60", "280", "400", "absent", "string"], valid: ["-10", "60", "280"] },
  nbf: { all: ["absent", "-10", "120", "string"], valid: ["absent", "-10"] },
  iat: { all: ["now", "absent", "string"], valid: ["now", "absent"] },
  jti: { all: ["fresh", "used", "absent", "empty", "200-chars", "201-chars", "number"], valid: ["fresh", "200-chars"] },
  // A key embedded in the header (`jwk`) is never trusted: the app's key still decides.
  extra: { all: ["none", "crit", "embedded-jwk", "padded", "signature-flipped"], valid: ["none", "embedded-jwk"] },
  endpoint: { all: ["installation-token", "introspection"], valid: ["installation-token", "introspection"] },
} as const;

type Field = keyof typeof choices;
type Case = { [F in Field]: (typeof choices)[F]["all"][number] };

const anAssertionCase: fc.Arbitrary<Case> = fc.record(
  Object.fromEntries(
    Object.entries(choices).map(([field, { all, valid }]) => [
      field,
      // Valid choices weighted up, so about one case in five is accepted and the rest break one or a few rules.
      fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...all) }),
    ]),
  ) as { [F in Field]: fc.Arbitrary<Case[F]> },
);

const keepsEveryRule = (c: Case) =>
  (Object.keys(choices) as Field[]).every((field) =>
    (choices[field].valid as readonly string[]).includes(c[field] as string),
  );

function assertionClaimsOf(c: Case, jti: string | number | undefined): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  const clientId = app.app.clientId;
  const iss = {
    client: clientId,
    "other-client": other.app.clientId,
    unknown: "no-such-client",
    absent: undefined,
    number: 42,
  }[c.iss];
  const endpoint = `${appUrl()}/oauth/token`;
  const claims: Record<string, unknown> = {
    iss,
    sub: { same: iss, other: "someone-else", absent: undefined }[c.sub],
    aud: {
      "token-endpoint": endpoint,
      issuer: appUrl(),
      "array-with-endpoint": ["https://elsewhere.example", endpoint],
      elsewhere: "https://elsewhere.example/oauth/token",
      "array-elsewhere": ["https://elsewhere.example/oauth/token"],
      "empty-array": [],
      absent: undefined,
      number: 7,
    }[c.aud],
    exp: c.exp === "absent" ? undefined : c.exp === "string" ? String(now + 60) : now + Number(c.exp),
    nbf: c.nbf === "absent" ? undefined : c.nbf === "string" ? "soon" : now + Number(c.nbf),
    iat: c.iat === "now" ? now : c.iat === "string" ? "now" : undefined,
    jti,
  };
  return Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined)) as JWTPayload;
}

async function signAssertionCase(c: Case, claims: JWTPayload): Promise<string> {
  const kid = {
    own: c.signer === "rs" ? rs.kid : es.kid,
    absent: undefined,
    unknown: "not-a-key-of-this-app",
    // The app's other key's kid: one of the app's, for another algorithm.
    crossed: c.signer === "rs" ? es.kid : rs.kid,
  }[c.kid];
  const header: Record<string, unknown> = { typ: "JWT", ...(kid ? { kid } : {}) };
  // A critical extension the server does not know: RFC 7515 §4.1.11 says to refuse the JWS.
  if (c.extra === "crit") Object.assign(header, { crit: ["x-ext"], "x-ext": true });
  if (c.extra === "embedded-jwk") Object.assign(header, { jwk: stranger.publicJwk });
  let jwt: string;
  if (c.signer === "none") {
    jwt = unsignedJwt(header, claims);
  } else {
    const [alg, key] = {
      es: ["ES256", es.privateKey],
      rs: ["RS256", rs.privateKey],
      stranger: ["ES256", stranger.privateKey],
      hs256: ["HS256", hmacSecret],
    }[c.signer] as [string, CryptoKey | Uint8Array];
    jwt = await new SignJWT(claims).setProtectedHeader({ ...header, alg }).sign(key, { crit: { "x-ext": true } });
  }
  const [head, body, signature = ""] = jwt.split(".") as [string, string, string];
  if (c.extra === "padded") return `${head}.${body}=.${signature}`;
  if (c.extra === "signature-flipped" && signature.length > 10) {
    const at = Math.floor(signature.length / 2);
    return `${head}.${body}.${signature.slice(0, at)}${signature[at] === "A" ? "B" : "A"}${signature.slice(at + 1)}`;
  }
  return jwt;
}

function assertionJtiOf(c: Case): string | number | undefined {
  if (c.jti === "used") return accepted[0] ?? randomUUID();
  return {
    fresh: randomUUID(),
    absent: undefined,
    empty: "",
    "200-chars": `${randomUUID()}${"j".repeat(164)}`,
    "201-chars": `${randomUUID()}${"j".repeat(165)}`,
    number: 7,
  }[c.jti];
}

/** The form's client_id: none, this app's, or another app's. */
const formClientIdOf = (c: Pick<Case, "formClientId">) =>
  ({ absent: undefined, same: app.app.clientId, other: other.app.clientId })[c.formClientId];

async function sendAssertionCase(c: Pick<Case, "type" | "formClientId" | "endpoint">, assertion: string) {
  const type = {
    "jwt-bearer": CLIENT_ASSERTION_TYPE,
    "saml2-bearer": "urn:ietf:params:oauth:client-assertion-type:saml2-bearer",
    empty: "",
    absent: undefined,
  }[c.type];
  const form = { client_assertion_type: type, client_assertion: assertion, client_id: formClientIdOf(c) };
  if (c.endpoint === "introspection") return api.post("/oauth/introspect", { form: { ...form, token: "not-a-token" } });
  return api.post("/oauth/token", {
    form: { ...form, grant_type: "client_credentials", companyId: agency.company.id },
  });
}

/** Every field at its first valid choice: an assertion that keeps every rule. */
const good = Object.fromEntries(Object.entries(choices).map(([field, { valid }]) => [field, valid[0]])) as Case;

/** Sends the case's assertion and checks the answer against the rules. */
async function judgeAssertionCase(c: Case): Promise<void> {
  const jti = assertionJtiOf(c);
  const answer = await sendAssertionCase(c, await signAssertionCase(c, assertionClaimsOf(c, jti)));
  const seen = `${JSON.stringify(c)} → ${answer.status} ${JSON.stringify(answer.body)}`;
  if (keepsEveryRule(c)) {
    expect(answer.status, seen).toBe(200);
    if (c.endpoint === "installation-token") expect(answer.body.access_token, seen).toEqual(expect.any(String));
    else expect(answer.body, seen).toEqual({ active: false });
    accepted.push(jti as string);
    return;
  }
  expect(answer.status, seen).toBeOneOf([400, 401]);
  // A form client_id that differs from the assertion's iss is the request's fault, not the client's.
  expect(answer.body.error, seen).toBe(answer.status === 401 ? "invalid_client" : "invalid_request");
  if (answer.status === 400) expect(formClientIdOf(c), seen).not.toBe(assertionClaimsOf(c, jti).iss);
  expect(answer.body.error_description, seen).toMatch(/\w{3,}/);
  // Nothing consumed: the same jti, in an assertion that keeps every rule, is accepted now.
  if (typeof jti === "string" && jti !== "" && jti.length <= 200 && c.jti !== "used") {
    const retry = await sendAssertionCase(good, await signAssertionCase(good, assertionClaimsOf(good, jti)));
    expect(retry.status, `${seen} consumed its jti: ${JSON.stringify(retry.body)}`).toBe(200);
    accepted.push(jti);
  }
}

describe("private_key_jwt: every signed assertion's claims", () => {
  it("each choice of each field on its own, beside choices that keep every rule", async () => {
    for (const [field, { all }] of Object.entries(choices)) {
      for (const choice of all) await judgeAssertionCase({ ...good, [field]: choice });
    }
  });

  it("any mix of them (property): accepted exactly when every rule holds; a refusal is a 4xx that says why and consumes nothing", async () => {
    await fc.assert(fc.asyncProperty(anAssertionCase, judgeAssertionCase), { numRuns: 150 });
  });
});
