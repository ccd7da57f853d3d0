import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/accounts/permissions";
import type { HttpError } from "@/lib/api/http-error";
import type { CreatedApp } from "@/lib/apps/registry";
import { AUTHORIZATION_CODE_TTL_MS } from "@/lib/oauth/authorize/issue-code";
import type { InstallTarget } from "@/lib/oauth/authorize/resolve-target";
import { tokenEndpoint } from "@/lib/oauth/token-endpoint";
import type { TestAgency } from "@/lib/testing/fixtures";
import {
  agencyUserAndApp,
  codeGrant,
  formRequest,
  install,
  makeApp,
  pkcePair,
  redeemRefreshToken,
  type TokenAnswer,
  testRedirectUri,
} from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";

/**
 * SPEC.md › POST /oauth/token, grant_type=authorization_code, as a model: a code is single-use,
 * expires after 10 minutes and is bound to its client, redirect_uri and PKCE challenge; user_type,
 * when sent, must be the installation's level; a code used twice fails the second time and revokes
 * every token issued from it (RFC 6749 §4.1.2), and only those: a second code of the same
 * installation (a re-install) keeps its own. Any sequence of presentations of either code, by its
 * app or another, with any redirect_uri, code_verifier and user_type, at any moment (the 10-minute
 * edge likely), answers what the model says: the checks in the order the endpoint makes them, each
 * refusal 400 invalid_grant saying which.
 */

let agency: TestAgency;
let app: CreatedApp;
let otherApp: CreatedApp;
/** Who installs at sub-account level: a user of the agency's first sub-account. */
let subUser: Actor;

beforeAll(async () => {
  ({ agency, subUser, app } = await agencyUserAndApp(2));
  otherApp = await makeApp(agency.company.id);
});

type Level = "Company" | "Location";

interface Presentation {
  code: number;
  byOtherApp: boolean;
  /** Absent, the code's own, the app's other registered one, one the app never registered. */
  redirectUri: "none" | "own" | "other registered" | "unregistered";
  /** None sent; the code's own (none when it was issued without PKCE); another. */
  verifier: "none" | "right" | "wrong";
  userType: "none" | "right" | "wrong";
  /** When, in ms after the code was issued (a moment already past is now). */
  at?: number;
}
type Step = { wait: number } | Presentation;

const ttl = AUTHORIZATION_CODE_TTL_MS;
const moments = fc.oneof(fc.constantFrom(0, ttl - 1, ttl, ttl + 1), fc.integer({ min: 0, max: ttl + 60_000 }));
/** One the code's app would send: then what decides it is the code's state and the moment. */
const good = { byOtherApp: false, redirectUri: "own", verifier: "right", userType: "right" } as const;
/** A good presentation with one thing changed (or none), so that every check is reached often. */
const deviations: Partial<Presentation>[] = [
  {},
  { redirectUri: "none" },
  { userType: "none" },
  { byOtherApp: true },
  { redirectUri: "other registered" },
  { redirectUri: "unregistered" },
  { verifier: "none" },
  { verifier: "wrong" },
  { userType: "wrong" },
];
const aPresentation: fc.Arbitrary<Presentation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.nat({ max: 1 }), fc.constantFrom(...deviations), fc.option(moments, { nil: undefined }))
      .map(([code, deviation, at]) => ({ code, ...good, ...deviation, ...(at === undefined ? {} : { at }) })),
  },
  {
    // Any mix: the first check that fails decides.
    weight: 1,
    arbitrary: fc.record({
      code: fc.nat({ max: 1 }),
      byOtherApp: fc.boolean(),
      redirectUri: fc.constantFrom("none", "own", "other registered", "unregistered"),
      verifier: fc.constantFrom("none", "right", "wrong"),
      userType: fc.constantFrom("none", "right", "wrong"),
      at: moments,
    }),
  },
);
const aStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: aPresentation },
  { weight: 1, arbitrary: moments.map((wait) => ({ wait })) },
);

/** A code as the model sees it. */
interface ModelCode {
  value: string;
  issuedAt: number;
  pkce: { verifier: string; challenge: string } | undefined;
  used: boolean;
  revoked: boolean;
  issued: TokenAnswer | undefined;
}

/** Every answer the model gave over the runs: each must come up (see the test). */
const answered = new Set<string>();

/** What the model expects of a presentation: 200, or the refusal whose words the answer carries. */
function expectation(code: ModelCode, step: Presentation, now: number): "issued" | RegExp {
  if (step.byOtherApp) return /issued to another app/;
  if (code.used) return /already used/;
  if (now >= code.issuedAt + ttl) return /has expired/;
  if (step.redirectUri !== "none" && step.redirectUri !== "own") return /redirect_uri does not match/;
  if (code.pkce && step.verifier === "none") return /code_verifier is required/;
  if (code.pkce && step.verifier === "wrong") return /does not match the code_challenge/;
  if (!code.pkce && step.verifier === "wrong") return /issued without a code_challenge/;
  if (step.userType === "wrong") return /user_type must be/;
  return "issued";
}

const redirectUris = {
  none: undefined,
  own: testRedirectUri,
  "other registered": "http://localhost:4000/callback",
  unregistered: "https://evil.example.test/oauth/callback",
};

function exchange(code: ModelCode, step: Presentation, level: Level, now: number) {
  const client = step.byOtherApp ? otherApp : app;
  const verifier =
    step.verifier === "right" ? code.pkce?.verifier : step.verifier === "wrong" ? pkcePair().verifier : undefined;
  const userType = { none: undefined, right: level, wrong: level === "Company" ? "Location" : "Company" } as const;
  const form = {
    ...codeGrant(client, code.value, userType[step.userType]),
    redirect_uri: redirectUris[step.redirectUri],
    code_verifier: verifier,
  };
  return tokenEndpoint(formRequest("/oauth/token", form), new Date(now)).then(
    (answer) => ({ ok: true as const, answer: answer as TokenAnswer }),
    (error: HttpError) => ({ ok: false as const, error }),
  );
}

async function presentCodes(level: Level, withPkce: [boolean, boolean], steps: Step[]): Promise<void> {
  // Starts in the past, so that every moment of the sequence is before the real clock.
  let now = Date.now() - steps.length * (ttl + 60_000) - 60_000;
  // The sub-account install is the first sub-account's; the agency install covers the second.
  const [installer, target]: [Actor, InstallTarget] =
    level === "Company"
      ? [agency.owner, { level: "agency", locationIds: [agency.locations[1]!.id] }]
      : [subUser, { level: "location", locationId: agency.locations[0]!.id }];
  const codes: ModelCode[] = [];
  // The second code is a re-install of the same installation, a moment later.
  for (const pkce of withPkce) {
    const pair = pkce ? pkcePair() : undefined;
    const extra = pair ? { code_challenge: pair.challenge, code_challenge_method: "S256" } : {};
    const { code } = await install(installer, app.app.clientId, target, extra, new Date(now));
    codes.push({ value: code, issuedAt: now, pkce: pair, used: false, revoked: false, issued: undefined });
    now += 1;
  }
  const log: string[] = [`${level} install, PKCE ${withPkce.join("/")}`];
  for (const step of steps) {
    if ("wait" in step) {
      now += step.wait;
      log.push(`wait ${step.wait} ms`);
      continue;
    }
    const code = codes[step.code]!;
    if (step.at !== undefined) now = Math.max(now, code.issuedAt + step.at);
    const expected = expectation(code, step, now);
    answered.add(String(expected));
    log.push(`present code ${step.code} at ${now - code.issuedAt} ms: ${JSON.stringify(step)} → ${String(expected)}`);
    const outcome = await exchange(code, step, level, now);
    const seen = `${log.join("\n")}\n→ ${outcome.ok ? "200" : `${outcome.error.status} ${outcome.error.code}: ${outcome.error.description}`}`;
    if (expected === "issued") {
      expect(outcome.ok, seen).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.answer.userType, seen).toBe(level);
      code.used = true;
      code.issued = outcome.answer;
    } else {
      expect(outcome.ok, seen).toBe(false);
      if (outcome.ok) return;
      expect([outcome.error.status, outcome.error.code], seen).toEqual([400, "invalid_grant"]);
      expect(outcome.error.description, seen).toMatch(expected);
      // A replay revokes what the code issued (and nothing of the other code's).
      if (code.used && !step.byOtherApp) code.revoked = true;
    }
    for (const each of codes) {
      if (!each.issued) continue;
      const works = (await verifyAccessToken(each.issued.access_token, new Date(now))).ok;
      expect(works, `${seen}\ncode ${codes.indexOf(each)}'s access token`).toBe(!each.revoked);
    }
  }
  // The refresh token each code issued works exactly while its code's tokens are not revoked.
  for (const each of codes) {
    if (!each.issued) continue;
    const refreshed = redeemRefreshToken(app, each.issued.refresh_token, new Date(now));
    const answer = await refreshed.then(
      () => "200",
      (error: HttpError) => error.code,
    );
    expect(answer, `${log.join("\n")}\ncode ${codes.indexOf(each)}'s refresh`).toBe(
      each.revoked ? "invalid_grant" : "200",
    );
  }
}

/** Code 0 with PKCE, code 1 without: every refusal, a success, a replay, then an expiry. */
const everyAnswer: Step[] = [
  ...deviations.slice(3).map((deviation) => ({ code: 0, ...good, ...deviation })),
  { code: 1, ...good, verifier: "wrong" },
  { code: 0, ...good },
  { code: 0, ...good },
  { code: 1, ...good, at: ttl },
];

describe("authorization codes under any sequence of presentations (model-based property)", () => {
  it("answer as the model says: single use, 10 minutes, bound to client, redirect_uri, PKCE and level", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Level>("Company", "Location"),
        fc.tuple(fc.boolean(), fc.boolean()),
        fc.array(aStep, { minLength: 1, maxLength: 10 }),
        (level, withPkce, steps) => presentCodes(level, withPkce, steps),
      ),
      // First a sequence that reaches every answer, so the last expectation below never rests on luck.
      { numRuns: 40, examples: [["Location", [true, false], everyAnswer]] },
    );
    // Every answer expectation() can give was reached: a success, a replay and the seven refusals.
    expect([...answered].sort(), "the model's answers over the runs").toHaveLength(9);
  });
});
