"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { actorAction } from "@/lib/auth/actions";
import { uninstallApp } from "@/lib/oauth/uninstall";

export const uninstallAction = actorAction(
  z.object({ installationId: z.string().min(1).max(200) }),
  async ({ installationId }, actor) => {
    await uninstallApp({ installationId, actor });
    revalidatePath("/marketplace");
    return { ok: true, message: "Uninstalled." };
  },
);
