import { z } from "zod";
import { createLocation } from "@/lib/provisioning/create-location";
import { defineCommand } from "../command";

export const locationCreate = defineCommand({
  description: "Create a sub-account: --company, --name",
  flags: z.strictObject({ company: z.string().min(1), name: z.string().trim().min(1).max(200) }),
  async run(flags) {
    const location = await createLocation({ companyId: flags.company, name: flags.name });
    return { id: location.id };
  },
});
