"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import { approveUpdate, declineUpdate } from "@/lib/oauth/app-updates";
import { uninstallApp } from "@/lib/oauth/uninstall";

export const uninstallAction = actorAction(
  z.object({ installationId: z.string().min(1).max(200) }),
  async ({ installationId }, actor) => {
    await uninstallApp({ installationId, actor });
    revalidatePath("/marketplace");
    return { ok: true, message: "Uninstalled." };
  },
);

const installation = z.object({ installationId: z.string().min(1).max(200) });

export const approveUpdateAction = actorAction(
  installation,
  async ({ installationId }, actor) => {
    await approveUpdate({ installationId, actor });
    revalidatePath("/marketplace");
    return { redirectTo: "/marketplace" };
  },
  { unreadable: "This update could not be read. Open it again from the marketplace." },
);

export const declineUpdateAction = actorAction(
  installation,
  async ({ installationId }, actor) => {
    await declineUpdate({ installationId, actor });
    revalidatePath("/marketplace");
    return { redirectTo: "/marketplace" };
  },
  { unreadable: "This update could not be read. Open it again from the marketplace." },
);
