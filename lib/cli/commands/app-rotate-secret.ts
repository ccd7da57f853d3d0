import { z } from "zod";
import { clientSecretOverlaps, DEFAULT_CLIENT_SECRET_OVERLAP } from "@/lib/apps/client-secret-overlap";
import { rotateClientSecret } from "@/lib/apps/secrets";
import { Refusal } from "@/lib/refusal";
import { defineCommand } from "../command";

export const appRotateSecret = defineCommand({
  description:
    "A new client secret for an app, printed once: --app <appId>, optional --overlap 1h|24h|7d (default 24h), how long the secret it replaces keeps working.",
  flags: z.strictObject({
    app: z.string().min(1),
    overlap: z
      .enum(clientSecretOverlaps, { error: `must be ${clientSecretOverlaps.join(", ")}` })
      .default(DEFAULT_CLIENT_SECRET_OVERLAP),
  }),
  async run(flags) {
    try {
      const { clientSecret } = await rotateClientSecret(flags.app, { overlap: flags.overlap });
      return { clientSecret };
    } catch (error) {
      // The screens' "in your agency" means nothing to an operator.
      if (error instanceof Refusal && error.kind === "not_found") {
        throw new Refusal("not_found", `There is no app with id "${flags.app}" (--app is the app's id).`, "app");
      }
      throw error;
    }
  },
});
