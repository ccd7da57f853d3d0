import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedApp } from "@/lib/apps/registry";
import { resetEnvCache } from "@/lib/env";
import { makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { install, makeApp, redeemCode, redeemRefreshToken } from "@/lib/testing/oauth";
import { verifyAccessToken } from "@/lib/tokens/access-token";

/**
 * SPEC.md › POST /oauth/token, grant_type=refresh_token, as a model: refresh tokens are single-use
 * and rotate; a used one presented again within REFRESH_TOKEN_REUSE_SECONDS of its FIRST use answers
 * 200 with a new working pair of the same family and revokes nothing; presented later it is reuse:
 * 400 invalid_grant, and the whole family is revoked (its refresh and access tokens alike). Any
 * sequence of presentations of any token of a family, at any moments, must answer what the model
 * says, with the window on (30 s) and off (0).
 */

let agency: TestAgency;
let app: CreatedApp;
const second = 1000;

beforeAll(async () => {
  agency = await makeAgency({ locations: 1 });
  app = await makeApp(agency.company.id);
});

afterAll(() => {
  delete process.env.REFRESH_TOKEN_REUSE_SECONDS;
  resetEnvCache();
});

/**
 * Wait, present a token of the family now, or present one at a moment measured from its first use
 * (the window's edges, 29.999, 30 and 30.001 s, are likely, not lucky; a moment already past is now).
 */
type Step = { wait: number } | { present: number; sinceFirstUse?: number };

const edges = [0, 1, 15_000, 29_999, 30_000, 30_001];
const aStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.nat({ max: 1000 }).map((present) => ({ present })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat({ max: 1000 }), fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: 45_000 })))
      .map(([present, sinceFirstUse]) => ({ present, sinceFirstUse })),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.constantFrom(...edges), fc.integer({ min: 0, max: 45_000 })).map((wait) => ({ wait })),
  },
);

/** The family as the model sees it: each refresh token with its first use, and whether it is revoked. */
interface ModelFamily {
  tokens: { value: string; firstUsedAt: number | null }[];
  accessTokens: string[];
  revoked: boolean;
}

async function runSequence(steps: Step[], windowSeconds: number): Promise<void> {
  // Starts in the past, so that every moment of the sequence is before the real clock.
  let now = Date.now() - steps.length * 45 * second - 60 * second;
  const { code } = await install(
    agency.owner,
    app.app.clientId,
    { level: "agency", locationIds: [agency.locations[0]!.id] },
    {},
    new Date(now),
  );
  const first = await redeemCode(app, code, "Company", new Date(now));
  const family: ModelFamily = {
    tokens: [{ value: first.refresh_token, firstUsedAt: null }],
    accessTokens: [first.access_token],
    revoked: false,
  };
  const log: string[] = [];
  for (const step of steps) {
    if ("wait" in step) {
      now += step.wait;
      log.push(`wait ${step.wait} ms`);
      continue;
    }
    const index = step.present % family.tokens.length;
    const token = family.tokens[index]!;
    if (step.sinceFirstUse !== undefined && token.firstUsedAt !== null) {
      now = Math.max(now, token.firstUsedAt + step.sinceFirstUse);
    }
    const inWindow =
      token.firstUsedAt !== null && windowSeconds > 0 && now - token.firstUsedAt < windowSeconds * second;
    const expected = family.revoked ? "refused" : token.firstUsedAt === null || inWindow ? "pair" : "reuse";
    log.push(
      `present token ${index} (first used ${token.firstUsedAt === null ? "never" : `${now - token.firstUsedAt} ms ago`}): ${expected}`,
    );
    const outcome = await redeemRefreshToken(app, token.value, new Date(now)).then(
      (answer) => ({ ok: true as const, answer }),
      (error: { code?: string }) => ({ ok: false as const, code: error.code }),
    );
    const seen = `${log.join("\n")}\n→ ${outcome.ok ? "200" : outcome.code}`;
    if (expected === "pair") {
      expect(outcome.ok, seen).toBe(true);
      if (!outcome.ok) return;
      token.firstUsedAt ??= now;
      family.tokens.push({ value: outcome.answer.refresh_token, firstUsedAt: null });
      family.accessTokens.push(outcome.answer.access_token);
    } else {
      expect(outcome, seen).toEqual({ ok: false, code: "invalid_grant" });
      family.revoked = true;
    }
    // The newest access token works exactly while the family does.
    expect((await verifyAccessToken(family.accessTokens.at(-1)!, new Date(now))).ok, seen).toBe(!family.revoked);
  }
  // And so does every other.
  for (const accessToken of family.accessTokens) {
    expect((await verifyAccessToken(accessToken, new Date(now))).ok, log.join("\n")).toBe(!family.revoked);
  }
}

describe("a refresh-token family under any sequence of presentations (model-based property)", () => {
  for (const windowSeconds of [30, 0]) {
    it(`answers as the model says, REFRESH_TOKEN_REUSE_SECONDS=${windowSeconds}`, async () => {
      process.env.REFRESH_TOKEN_REUSE_SECONDS = String(windowSeconds);
      resetEnvCache();
      await fc.assert(
        fc.asyncProperty(fc.array(aStep, { minLength: 1, maxLength: 14 }), (steps) =>
          runSequence(steps, windowSeconds),
        ),
        { numRuns: 20 },
      );
    });
  }
});
