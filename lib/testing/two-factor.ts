import { beginTotpSetup, confirmTotpSetup } from "@/lib/auth/two-factor/authenticator-app";
import { totpCodeAt } from "@/lib/auth/two-factor/totp";
import { makeAgency } from "./fixtures";

/**
 * A new agency's owner with an authenticator app, set up at `setUpAt` (a minute ago by default, so
 * the code of now is a later step than the set-up's): the person, the secret, the recovery codes.
 */
export async function personWithTotp(setUpAt = new Date(Date.now() - 60_000)) {
  const { owner } = await makeAgency({ locations: 0 });
  const { secret } = await beginTotpSetup(owner);
  const { recoveryCodes = [] } = await confirmTotpSetup(owner.id, totpCodeAt(secret, setUpAt), setUpAt);
  return { owner, secret, recoveryCodes };
}
