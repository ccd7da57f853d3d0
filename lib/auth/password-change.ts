import { z } from "zod";
import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { passwordSchema } from "@/lib/accounts/users";
import { hashPassword, verifyPassword } from "@/lib/crypto/password";
import { db } from "@/lib/db/client";
import { forbidden, invalid, notFound } from "@/lib/refusal";
import { throttledSignIn } from "./throttle";

export const passwordChangeSchema = z.object({
  currentPassword: z
    .string()
    .min(1, { error: "Enter your current password." })
    .max(200, { error: "Use a password of at most 200 characters." }),
  newPassword: passwordSchema,
});

/**
 * The signed-in person changes their own password. Every session of theirs ends (the version
 * moves on); the caller re-issues the current one with the returned version so it survives.
 * Wrong current passwords count towards the sign-in throttle, so a session cannot guess it.
 */
export async function changeOwnPassword(
  actor: Actor,
  input: z.input<typeof passwordChangeSchema>,
  now = new Date(),
): Promise<{ sessionVersion: number }> {
  const { currentPassword, newPassword } = passwordChangeSchema.parse(input);
  const attempt = `account-settings:${actor.id}`;
  const checked = await throttledSignIn(
    actor.email,
    attempt,
    async () => {
      const row = await db().user.findFirst({
        where: { id: actor.id, removedAt: null },
        select: { passwordHash: true },
      });
      if (!row) throw notFound("Your account no longer exists.");
      return (await verifyPassword(currentPassword, row.passwordHash)) ? row : null;
    },
    now,
  );
  if (!checked.ok && checked.reason === "throttled") {
    throw forbidden("Too many wrong passwords. For your safety, wait 15 minutes before trying again.");
  }
  if (!checked.ok) throw invalid("This is not your current password.", "currentPassword");
  if (newPassword === currentPassword) {
    throw invalid("Choose a new password, different from the current one.", "newPassword");
  }
  const passwordHash = await hashPassword(newPassword);
  return db().$transaction(async (tx) => {
    const updated = await tx.user.update({
      where: { id: actor.id },
      data: { passwordHash, mustChangePassword: false, sessionVersion: { increment: 1 } },
      select: { sessionVersion: true },
    });
    await recordAudit(tx, {
      companyId: actor.companyId,
      actorUserId: actor.id,
      action: "user_password_changed",
      targetId: actor.id,
      details: { by: "self" },
    });
    return updated;
  });
}
