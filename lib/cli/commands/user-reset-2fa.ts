import { z } from "zod";
import { resetTwoFactor } from "@/lib/auth/two-factor/factors";
import { defineCommand } from "../command";

export const userReset2fa = defineCommand({
  description:
    "Remove a user's second factors and recovery codes (a lost phone): --email. Every session of the user ends.",
  flags: z.strictObject({ email: z.string() }),
  async run(flags) {
    return resetTwoFactor(flags.email);
  },
});
