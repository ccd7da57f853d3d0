import { z } from "zod";
import { roleSchema } from "@/lib/accounts/roles";
import { createUser } from "@/lib/accounts/users";
import { defineCommand } from "../command";

const onOff = z.enum(["on", "off"], { error: "must be on or off" }).transform((v) => v === "on");

export const userCreate = defineCommand({
  description:
    "Create a user: --email, --password, --name, --role, --company, --location (repeatable), optional --agency-pi on|off, --location-pi on|off",
  repeatable: ["location"],
  flags: z.strictObject({
    email: z.string(),
    password: z.string(),
    name: z.string(),
    role: roleSchema,
    company: z.string().min(1),
    location: z.array(z.string().min(1)).optional(),
    "agency-pi": onOff.optional(),
    "location-pi": onOff.optional(),
  }),
  async run(flags) {
    const user = await createUser({
      email: flags.email,
      password: flags.password,
      name: flags.name,
      role: flags.role,
      companyId: flags.company,
      locationIds: flags.location ?? [],
      agencyPrivateIntegrations: flags["agency-pi"],
      locationPrivateIntegrations: flags["location-pi"],
    });
    return { id: user.id };
  },
});
