import { z } from "zod";
import { rotateSigningKey } from "@/lib/tokens/signing-keys";
import { defineCommand } from "../command";

export const signingKeyRotate = defineCommand({
  description: "Sign new access tokens with a new key; the old one is published until its tokens expire",
  flags: z.strictObject({}),
  async run() {
    const { kid, previousKid } = await rotateSigningKey();
    return { kid, previousKid };
  },
});
