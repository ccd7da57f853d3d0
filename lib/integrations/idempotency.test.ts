// Over 250 lines on purpose: every promise of idempotency keys (same answer, one change, conflict,
// per actor, concurrency, 24 hours and pruning, `Token never shown`) over one clock and setup.
import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { IDEMPOTENCY_KEY_TTL_MS, keyReusedMessage, openAnswer, parseIdempotencyKey } from "@/lib/idempotency/keys";
import { pruneOnce } from "@/lib/maintenance/prune";
import { Refusal } from "@/lib/refusal";
import { makeAgency, makeUser, newIdempotencyKey } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { refusal } from "@/lib/testing/refusal";
import type { IntegrationActor, IntegrationOwner } from "./access";
import { listAuditLog } from "./audit-log";
import { confirmTokenShown } from "./idempotency";
import { createPrivateIntegration, rotateLater, rotateNow, tokenAlreadyShownMessage } from "./lifecycle";
import { getPrivateIntegration, listPrivateIntegrations } from "./read";
import { verifyPrivateIntegrationToken } from "./verify";
import { TOKEN_NEVER_SHOWN_AFTER_MS } from "./views";

/**
 * Idempotency keys of create and both rotations (lib/integrations/idempotency.ts): runs on PGlite,
 * and on PostgreSQL with TEST_DATABASE_URL, where the concurrent duplicates really run at once.
 */

const input = { name: "Billing sync", description: "", scopes: ["locations.readonly"] };

/** A new agency, its owner as the actor, and its own level as the owner of what is created. */
async function freshAgency() {
  const agency = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  const owner: IntegrationOwner = { level: "agency", companyId: agency.company.id };
  return { agency, actor: agency.owner, owner };
}

const countIntegrations = (companyId: string) => db().privateIntegration.count({ where: { companyId } });
const tokenRows = (integrationId: string) =>
  db().privateIntegrationToken.findMany({ where: { integrationId }, orderBy: { createdAt: "asc" } });
const activityActions = async (owner: IntegrationOwner, actor: Parameters<typeof listAuditLog>[0]) =>
  (await listAuditLog(actor, owner, { limit: 50 })).map((e) => e.action);

describe("the key's format", () => {
  it("takes 1 to 200 visible ASCII characters; none is no key", () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey(null)).toBeUndefined();
    expect(parseIdempotencyKey("a")).toBe("a");
    expect(parseIdempotencyKey("x".repeat(200))).toBe("x".repeat(200));
    for (const bad of ["", "x".repeat(201), "with space", "tab\tkey", "é"])
      expect(() => parseIdempotencyKey(bad), bad).toThrow(Refusal);
  });
});

describe("create with a key", () => {
  it("sent again, answers the first answer (the same token) and creates nothing more", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const first = await createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key });
    const again = await createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key });
    expect(again.token).toBe(first.token);
    expect(again.integration).toEqual(first.integration);
    expect(again.integration.createdAt).toBeInstanceOf(Date);
    expect(await countIntegrations(agency.company.id)).toBe(1);
    expect(await activityActions(owner, actor)).toEqual(["private_integration_created"]);
    expect((await verifyPrivateIntegrationToken(first.token)).ok).toBe(true);
  });

  it("is refused (conflict) with another body, and changes nothing", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    await createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key });
    const refused = await refusal(
      createPrivateIntegration(actor, owner, { ...input, name: "Other" }, new Date(), { idempotencyKey: key }),
    );
    expect(refused.kind).toBe("conflict");
    expect(refused.message).toBe(keyReusedMessage);
    expect(await countIntegrations(agency.company.id)).toBe(1);
  });

  it("is another actor's own key: the same key by another person creates their own", async () => {
    const { agency, actor, owner } = await freshAgency();
    const admin = await makeUser(agency.company.id, "agency_admin");
    const key = newIdempotencyKey();
    const mine = await createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key });
    const theirs = await createPrivateIntegration(admin, owner, input, new Date(), { idempotencyKey: key });
    expect(theirs.token).not.toBe(mine.token);
    expect(theirs.integration.id).not.toBe(mine.integration.id);
    expect(await countIntegrations(agency.company.id)).toBe(2);
  });

  it("keeps no claim for a refused request: the same key with the form fixed creates it", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const refused = await refusal(
      createPrivateIntegration(actor, owner, { ...input, name: "" }, new Date(), { idempotencyKey: key }),
    );
    expect(refused.kind).toBe("invalid");
    const created = await createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key });
    expect(created.integration.name).toBe("Billing sync");
    expect(await countIntegrations(agency.company.id)).toBe(1);
  });

  it("sent many times at once, creates one integration and gives every caller its token", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key }),
      ),
    );
    expect(new Set(answers.map((a) => a.token)).size).toBe(1);
    expect(new Set(answers.map((a) => a.integration.id)).size).toBe(1);
    expect(await countIntegrations(agency.company.id)).toBe(1);
  });

  it("keeps the answer sealed: no token, no name in the row", async () => {
    const { actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const { token } = await createPrivateIntegration(actor, owner, input, new Date(), { idempotencyKey: key });
    const row = await db().idempotentAnswer.findUniqueOrThrow({
      where: { actorKey_key: { actorKey: `user:${actor.id}`, key } },
    });
    expect(row.answerEncrypted).not.toContain(token);
    expect(row.answerEncrypted).not.toContain(token.slice(-8));
    expect(row.answerEncrypted).not.toContain("Billing");
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(IDEMPOTENCY_KEY_TTL_MS);
    expect((openAnswer(row.answerEncrypted) as { token: string }).token).toBe(token);
  });
});

describe("rotations with a key", () => {
  it("rotate now sent again answers the same token and rotates once", async () => {
    const { agency, actor, owner } = await freshAgency();
    const { integration, token: first } = await makeIntegration(agency, input);
    const key = newIdempotencyKey();
    const rotated = await rotateNow(actor, owner, integration.id, new Date(), undefined, { idempotencyKey: key });
    const again = await rotateNow(actor, owner, integration.id, new Date(), undefined, { idempotencyKey: key });
    expect(again.token).toBe(rotated.token);
    expect(again.integration).toEqual(rotated.integration);
    expect(await tokenRows(integration.id)).toHaveLength(2);
    expect((await verifyPrivateIntegrationToken(first)).ok).toBe(false);
    expect((await verifyPrivateIntegrationToken(rotated.token)).ok).toBe(true);
    expect(await activityActions(owner, actor)).toEqual([
      "private_integration_rotated_now",
      "private_integration_created",
    ]);
  });

  it("rotate later sent again answers the same token, not `a rotation is already in progress`", async () => {
    const { agency, actor, owner } = await freshAgency();
    const { integration } = await makeIntegration(agency, input);
    const key = newIdempotencyKey();
    const rotated = await rotateLater(actor, owner, integration.id, new Date(), 3, { idempotencyKey: key });
    const again = await rotateLater(actor, owner, integration.id, new Date(), 3, { idempotencyKey: key });
    expect(again.token).toBe(rotated.token);
    expect(again.integration.previousToken?.expiresAt).toEqual(rotated.integration.previousToken?.expiresAt);
    expect(await tokenRows(integration.id)).toHaveLength(2);
    // Another overlap is another request.
    const refused = await refusal(rotateLater(actor, owner, integration.id, new Date(), 7, { idempotencyKey: key }));
    expect(refused.message).toBe(keyReusedMessage);
    // The same key for another operation or integration too.
    expect(
      (await refusal(rotateNow(actor, owner, integration.id, new Date(), undefined, { idempotencyKey: key }))).message,
    ).toBe(keyReusedMessage);
  });

  it("sent many times at once, rotates once and gives every caller the same token", async () => {
    const { agency, actor, owner } = await freshAgency();
    const { integration } = await makeIntegration(agency, input);
    const key = newIdempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        rotateNow(actor, owner, integration.id, new Date(), undefined, { idempotencyKey: key }),
      ),
    );
    expect(new Set(answers.map((a) => a.token)).size).toBe(1);
    expect(await tokenRows(integration.id)).toHaveLength(2);
    expect((await verifyPrivateIntegrationToken(answers[0]!.token)).ok).toBe(true);
  });

  it("an integration's key is its own, and the API's answer counts as shown", async () => {
    const { agency, actor, owner } = await freshAgency();
    const caller = await makeIntegration(agency, {
      ...input,
      name: "Rotator",
      scopes: ["private-integrations.write", "locations.readonly"],
    });
    const target = await makeIntegration(agency, input);
    const integrationActor: IntegrationActor = {
      kind: "integration",
      integrationId: caller.integration.id,
      companyId: agency.company.id,
      scopes: ["private-integrations.write", "locations.readonly"],
    };
    const key = newIdempotencyKey();
    const byPerson = await rotateNow(actor, owner, target.integration.id, new Date(), undefined, {
      idempotencyKey: key,
    });
    const byIntegration = await rotateNow(integrationActor, owner, target.integration.id, new Date(), undefined, {
      idempotencyKey: key,
    });
    expect(byIntegration.token).not.toBe(byPerson.token);
    const rows = await tokenRows(target.integration.id);
    expect(rows).toHaveLength(3);
    expect(rows.every((t) => t.shownAt !== null)).toBe(true);
  });
});

describe("24 hours, then pruned", () => {
  it("answers the same until 24 hours have passed, then runs as a new request; the pruner deletes it", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const t0 = new Date();
    const first = await createPrivateIntegration(actor, owner, input, t0, { idempotencyKey: key });
    const justBefore = new Date(t0.getTime() + IDEMPOTENCY_KEY_TTL_MS - 1);
    expect((await createPrivateIntegration(actor, owner, input, justBefore, { idempotencyKey: key })).token).toBe(
      first.token,
    );
    const where = { actorKey_key: { actorKey: `user:${actor.id}`, key } };
    const scoped = { pauseMs: 0, companyIds: [agency.company.id] };
    expect((await pruneOnce({ now: justBefore, ...scoped })).idempotentAnswers).toBe(0);
    expect(await db().idempotentAnswer.findUnique({ where })).not.toBeNull();

    const after = new Date(t0.getTime() + IDEMPOTENCY_KEY_TTL_MS + 1);
    expect((await pruneOnce({ now: after, ...scoped })).idempotentAnswers).toBe(1);
    expect(await db().idempotentAnswer.findUnique({ where })).toBeNull();
    // Another agency's runs leave this agency's rows alone.
    const other = await makeAgency({ locations: 0 });
    await createPrivateIntegration(actor, owner, input, t0, { idempotencyKey: `${key}-kept` });
    expect((await pruneOnce({ now: after, pauseMs: 0, companyIds: [other.company.id] })).idempotentAnswers).toBe(0);

    const later = await createPrivateIntegration(actor, owner, input, after, { idempotencyKey: key });
    expect(later.token).not.toBe(first.token);
    expect(await countIntegrations(agency.company.id)).toBe(3);
  });

  it("a row past its 24 hours not yet pruned is taken over by the next request with its key", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const t0 = new Date();
    const first = await createPrivateIntegration(actor, owner, input, t0, { idempotencyKey: key });
    const after = new Date(t0.getTime() + IDEMPOTENCY_KEY_TTL_MS);
    const other = { ...input, name: "Another body is fine now" };
    const later = await createPrivateIntegration(actor, owner, other, after, { idempotencyKey: key });
    expect(later.token).not.toBe(first.token);
    expect(await countIntegrations(agency.company.id)).toBe(2);
    const again = await createPrivateIntegration(actor, owner, other, after, { idempotencyKey: key });
    expect(again.token).toBe(later.token);
  });
});

describe("Token never shown", () => {
  it("a screen's token stays unshown until the screen says it showed it; then the answer forgets it", async () => {
    const { agency, actor, owner } = await freshAgency();
    const key = newIdempotencyKey();
    const t0 = new Date();
    const { integration, token } = await createPrivateIntegration(actor, owner, input, t0, {
      idempotencyKey: key,
      confirmShown: true,
    });
    expect(integration.token.neverShown).toBe(false);
    const soon = new Date(t0.getTime() + TOKEN_NEVER_SHOWN_AFTER_MS - 1);
    const late = new Date(t0.getTime() + TOKEN_NEVER_SHOWN_AFTER_MS);
    expect((await getPrivateIntegration(actor, owner, integration.id, soon)).token.neverShown).toBe(false);
    expect((await getPrivateIntegration(actor, owner, integration.id, late)).token.neverShown).toBe(true);
    expect((await listPrivateIntegrations(actor, owner, late))[0]!.token.neverShown).toBe(true);

    expect(await confirmTokenShown(actor, key, late)).toBe(true);
    expect((await getPrivateIntegration(actor, owner, integration.id, late)).token.neverShown).toBe(false);
    const row = await db().idempotentAnswer.findUniqueOrThrow({
      where: { actorKey_key: { actorKey: `user:${actor.id}`, key } },
    });
    expect((openAnswer(row.answerEncrypted) as { token: unknown }).token).toBeNull();
    const replay = await refusal(createPrivateIntegration(actor, owner, input, late, { idempotencyKey: key }));
    expect(replay.message).toBe(tokenAlreadyShownMessage);
    expect((await verifyPrivateIntegrationToken(token)).ok).toBe(true);
    // Another person cannot confirm it, nor can a key that answered nothing.
    const admin = await makeUser(agency.company.id, "agency_admin");
    expect(await confirmTokenShown(admin, key)).toBe(false);
    expect(await confirmTokenShown(actor, `${key}-unknown`)).toBe(false);
  });

  it("without a key, or through the API, a token counts as shown with its answer", async () => {
    const { actor, owner } = await freshAgency();
    const late = new Date(Date.now() + TOKEN_NEVER_SHOWN_AFTER_MS + 1000);
    const plain = await createPrivateIntegration(actor, owner, input, new Date(), { confirmShown: true });
    const keyed = await createPrivateIntegration(actor, owner, input, new Date(), {
      idempotencyKey: newIdempotencyKey(),
    });
    for (const { integration } of [plain, keyed])
      expect((await getPrivateIntegration(actor, owner, integration.id, late)).token.neverShown).toBe(false);
  });

  it("Rotate and expire this token now replaces a never-shown token, during a rotation too", async () => {
    const { agency, actor, owner } = await freshAgency();
    const { integration, token: first } = await makeIntegration(agency, input);
    // Rotate later, its answer lost: the old token works, the new one reached nobody.
    const lost = await rotateLater(actor, owner, integration.id, new Date(), 7, {
      idempotencyKey: newIdempotencyKey(),
      confirmShown: true,
    });
    const late = new Date(Date.now() + TOKEN_NEVER_SHOWN_AFTER_MS + 1000);
    const seen = await getPrivateIntegration(actor, owner, integration.id, late);
    expect(seen.status).toBe("rotating");
    expect(seen.token.neverShown).toBe(true);
    // Rotate later again is still refused: a rotation is in progress.
    expect((await refusal(rotateLater(actor, owner, integration.id))).message).toMatch(/already in progress/);

    const key = newIdempotencyKey();
    const fixed = await rotateNow(actor, owner, integration.id, new Date(), undefined, {
      idempotencyKey: key,
      confirmShown: true,
    });
    await confirmTokenShown(actor, key);
    const after = await getPrivateIntegration(actor, owner, integration.id, late);
    expect(after.status).toBe("rotating");
    expect(after.token.neverShown).toBe(false);
    expect(after.previousToken?.expiresAt).toEqual(seen.previousToken?.expiresAt);
    expect((await verifyPrivateIntegrationToken(first)).ok).toBe(true);
    expect((await verifyPrivateIntegrationToken(lost.token)).ok).toBe(false);
    expect((await verifyPrivateIntegrationToken(fixed.token)).ok).toBe(true);
    // Once the new token was shown, a rotation in progress refuses rotate now as before.
    expect((await refusal(rotateNow(actor, owner, integration.id))).message).toMatch(/already in progress/);
  });
});
