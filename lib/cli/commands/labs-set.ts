import { z } from "zod";
import { setLabsFeature } from "@/lib/accounts/labs";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/refusal";
import { defineCommand } from "../command";

export const labsSet = defineCommand({
  description: "Turn a Labs feature on or off: --company, --feature private-integrations, --enabled true|false",
  flags: z.strictObject({
    company: z.string().min(1),
    feature: z.enum(["private-integrations"], { error: "must be private-integrations" }),
    enabled: z.enum(["true", "false"], { error: "must be true or false" }).transform((v) => v === "true"),
  }),
  async run(flags) {
    const company = await db().company.findUnique({ where: { id: flags.company }, select: { id: true } });
    if (!company) throw notFound(`There is no agency with id ${flags.company}.`);
    const enabled = await setLabsFeature({
      companyId: company.id,
      feature: "private_integrations",
      enabled: flags.enabled,
    });
    return { enabled };
  },
});
