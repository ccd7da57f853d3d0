import { z } from "zod";
import { createApp } from "@/lib/apps/registry";
import { installSettings } from "@/lib/apps/settings";
import { defineCommand } from "../command";

export const appCreate = defineCommand({
  description:
    'Create a marketplace app: --company, --name, --redirect-uri (repeatable), --scopes "a b", --install-setting agency_only|everyone, optional --webhook-url',
  repeatable: ["redirect-uri"],
  flags: z.strictObject({
    company: z.string().min(1),
    name: z.string(),
    "redirect-uri": z.array(z.string()).min(1, { error: "give at least one --redirect-uri" }),
    scopes: z.string(),
    "install-setting": z.enum(installSettings, { error: "must be agency_only or everyone" }),
    "webhook-url": z.string().optional(),
  }),
  async run(flags) {
    const { app, clientSecret, webhookSecret } = await createApp({
      companyId: flags.company,
      name: flags.name,
      redirectUris: flags["redirect-uri"],
      scopes: flags.scopes.split(/\s+/).filter(Boolean),
      installSetting: flags["install-setting"],
      webhookUrl: flags["webhook-url"],
    });
    return { appId: app.id, versionId: app.versionId, clientId: app.clientId, clientSecret, webhookSecret };
  },
});
