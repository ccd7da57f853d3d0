"use server";

import { z } from "zod";
import { toAuditItem } from "@/components/private-integrations/serialize";
import type { AuditPage } from "@/components/private-integrations/types";
import { actorAction } from "@/lib/auth/actions";
import { listAuditPage } from "@/lib/integrations/audit-log";

/**
 * `Show more` under `Activity` and an integration's history: the next page of entries after the
 * last one shown (its time and id), read through the same gate as the screen; nothing changes.
 */
export const readActivityAction = actorAction(
  z.object({
    locationId: z.string().min(1).max(100).optional(),
    integrationId: z.string().min(1).max(100).optional(),
    beforeAt: z.iso.datetime().optional(),
    beforeId: z.string().min(1).max(100).optional(),
  }),
  async (input, actor) => {
    const page = await listAuditPage(
      actor,
      input.locationId
        ? { level: "location", locationId: input.locationId }
        : { level: "agency", companyId: actor.companyId },
      {
        integrationId: input.integrationId,
        before: input.beforeAt && input.beforeId ? { at: new Date(input.beforeAt), id: input.beforeId } : undefined,
      },
    );
    const activity: AuditPage = { entries: page.entries.map(toAuditItem), more: page.more };
    return { ok: true, data: { activity } };
  },
  { unreadable: "More activity could not be read; reload the page." },
);
