import { z } from "zod";
import { createCompany } from "@/lib/accounts/companies";
import { defineCommand } from "../command";

export const companyCreate = defineCommand({
  description: "Create an agency: --name, optional --whitelabel-domain, --whitelabel-logo-url",
  flags: z.strictObject({
    name: z.string().trim().min(1).max(200),
    "whitelabel-domain": z
      .string()
      .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, {
        error: "must be a host name such as app.example.com",
      })
      .optional(),
    "whitelabel-logo-url": z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  }),
  async run(flags) {
    const company = await createCompany({
      name: flags.name,
      whitelabelDomain: flags["whitelabel-domain"]?.toLowerCase(),
      whitelabelLogoUrl: flags["whitelabel-logo-url"],
    });
    return { id: company.id };
  },
});
