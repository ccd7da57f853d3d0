import { db } from "@/lib/db/client";
import { type IdempotentRequest, idempotentRequest, openAnswer, personKey, sealAnswer } from "@/lib/idempotency/keys";
import { isIntegrationActor, type LifecycleActor } from "./access";

/**
 * Idempotency keys of creates and rotations of private integrations (SPEC.md › What a person can
 * trust on it), over lib/idempotency/keys.ts. A screen's answer loses its token as soon as the browser
 * says it showed it (`confirmTokenShown`), which also stops its row reading `Token never shown`.
 */

/** Whose keys these are: a person's and an integration's never meet. */
export function actorKeyOf(actor: LifecycleActor): string {
  return isIntegrationActor(actor) ? `integration:${actor.integrationId}` : personKey(actor.id);
}

/** The claim of `key` by `actor` for `request` (operation, target and body). */
export function integrationRequest(actor: LifecycleActor, key: string, request: unknown): IdempotentRequest {
  return idempotentRequest(actorKeyOf(actor), key, request);
}

/** A stored answer of an issued token: the token is null once a screen showed it. */
interface StoredIssue {
  integration: { token: { id: string } };
  token: string | null;
}

/**
 * A screen's token dialog showed the token the answer to `key` carried: its token row stops reading
 * `Token never shown`, and the stored answer forgets the token (the dialog that could send the key
 * again is gone). Only the actor who sent the key reaches its answer. False when there is none.
 */
export async function confirmTokenShown(actor: LifecycleActor, key: string, now: Date = new Date()): Promise<boolean> {
  const where = { actorKey_key: { actorKey: actorKeyOf(actor), key } };
  const row = await db().idempotentAnswer.findUnique({ where, select: { answerEncrypted: true, expiresAt: true } });
  if (!row || row.answerEncrypted === "" || row.expiresAt.getTime() <= now.getTime()) return false;
  const answer = openAnswer(row.answerEncrypted) as StoredIssue;
  if (answer.token === null) return true;
  await db().$transaction([
    db().privateIntegrationToken.updateMany({
      where: { id: answer.integration.token.id, shownAt: null },
      data: { shownAt: now },
    }),
    db().idempotentAnswer.update({ where, data: { answerEncrypted: sealAnswer({ ...answer, token: null }) } }),
  ]);
  return true;
}
