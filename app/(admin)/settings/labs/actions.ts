"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { setLabsFeatureAs } from "@/lib/accounts/labs";
import { actorAction } from "@/lib/auth/actions";

const schema = z.object({
  feature: z.enum(["private_integrations"]),
  enabled: z.enum(["true", "false"]).transform((v) => v === "true"),
});

export const toggleLabsFeature = actorAction(schema, async ({ feature, enabled }, actor) => {
  await setLabsFeatureAs(actor, feature, enabled);
  revalidatePath("/", "layout");
  return { ok: true };
});
