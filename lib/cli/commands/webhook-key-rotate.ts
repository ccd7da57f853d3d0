import { z } from "zod";
import { rotateWebhookKey } from "@/lib/webhooks/signing-key";
import { defineCommand } from "../command";

/** Not in SPEC.md's table: an extra command of ours (README, Operator CLI). */
export const webhookKeyRotate = defineCommand({
  description: "Sign webhooks with a new Ed25519 key; the old one keeps signing (and x-ghl-signature) for 7 days",
  flags: z.strictObject({}),
  async run() {
    const { kid, previousKid } = await rotateWebhookKey();
    return { kid, previousKid };
  },
});
