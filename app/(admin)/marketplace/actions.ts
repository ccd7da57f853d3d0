"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { Actor } from "@/lib/accounts/permissions";
import { actorAction } from "@/lib/auth/actions";
import { approveUpdate, declineUpdate } from "@/lib/oauth/app-updates";
import { uninstallApp } from "@/lib/oauth/uninstall";

const installation = z.object({ installationId: z.string().min(1).max(200) });

export const uninstallAction = actorAction(installation, async ({ installationId }, actor) => {
  await uninstallApp({ installationId, actor });
  revalidatePath("/marketplace");
  return { ok: true, message: "Uninstalled." };
});

/** Approve or decline an update: either way the person goes back to the marketplace. */
function decideUpdateAction(decide: (options: { installationId: string; actor: Actor }) => Promise<unknown>) {
  return actorAction(
    installation,
    async ({ installationId }, actor) => {
      await decide({ installationId, actor });
      revalidatePath("/marketplace");
      return { redirectTo: "/marketplace" };
    },
    { unreadable: "This update could not be read. Open it again from the marketplace." },
  );
}

export const approveUpdateAction = decideUpdateAction(approveUpdate);
export const declineUpdateAction = decideUpdateAction(declineUpdate);
