import { db } from "@/lib/db/client";
import type { LabsFeatureKey } from "@/lib/generated/prisma/client";
import { recordAudit } from "./audit";

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
