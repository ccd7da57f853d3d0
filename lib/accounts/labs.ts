import { db } from "@/lib/db/client";
import type { LabsFeatureKey } from "@/lib/generated/prisma/client";
import { forbidden } from "@/lib/refusal";
import { recordAudit } from "./audit";
import { type Actor, canManageLabs } from "./permissions";

export const labsFeatures = {
  private_integrations: {
    name: "Private Integrations",
    description:
      "Static, scope-restricted API tokens for your own integrations, managed under Settings › Private Integrations.",
  },
} as const satisfies Record<LabsFeatureKey, { name: string; description: string }>;

/** Labs features are off for a new agency. */
export async function isLabsFeatureEnabled(companyId: string, feature: LabsFeatureKey): Promise<boolean> {
  const row = await db().labsFeature.findUnique({ where: { companyId_feature: { companyId, feature } } });
  return row?.enabled ?? false;
}

export async function setLabsFeature(options: {
  companyId: string;
  feature: LabsFeatureKey;
  enabled: boolean;
  actorUserId?: string;
}): Promise<boolean> {
  const { companyId, feature, enabled } = options;
  return db().$transaction(async (tx) => {
    await tx.labsFeature.upsert({
      where: { companyId_feature: { companyId, feature } },
      create: { companyId, feature, enabled },
      update: { enabled },
    });
    await recordAudit(tx, {
      companyId,
      actorUserId: options.actorUserId,
      action: "labs_feature_changed",
      details: { feature, enabled },
    });
    return enabled;
  });
}

/** The Labs screen's switch: owners and admins of the agency only. */
export async function setLabsFeatureAs(actor: Actor, feature: LabsFeatureKey, enabled: boolean): Promise<boolean> {
  if (!canManageLabs(actor)) throw forbidden("Only the agency's owners and admins can change Labs features.");
  return setLabsFeature({ companyId: actor.companyId, feature, enabled, actorUserId: actor.id });
}
