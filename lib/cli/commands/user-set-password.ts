import { z } from "zod";
import { setPasswordByOperator } from "@/lib/accounts/users";
import { defineCommand } from "../command";

export const userSetPassword = defineCommand({
  description: "Set a user's password: --email, --password. Every session of the user ends.",
  flags: z.strictObject({ email: z.string(), password: z.string() }),
  async run(flags) {
    return setPasswordByOperator({ email: flags.email, password: flags.password });
  },
});
