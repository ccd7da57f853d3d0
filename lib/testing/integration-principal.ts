import type { PrivateIntegrationInput } from "@/lib/integrations/schemas";
import { verifyPrivateIntegrationToken } from "@/lib/integrations/verify";
import type { Principal } from "@/lib/tokens/principal";
import type { TestAgency } from "./fixtures";
import { makeIntegration } from "./integrations";

/** An address its Allowed IP addresses accept (a range's first address), or any when none are set. */
export function addressAllowedBy(allowedIpAddresses: string | undefined): string {
  const first = allowedIpAddresses?.split("\n")[0]?.trim();
  return first ? (first.split("/")[0] as string) : "192.0.2.1";
}

/**
 * A new private integration of agency `T` (a sub-account's with `locationId`), made by its owner,
 * and the Principal a request with its token carries: verified as the API verifies it, at `now`,
 * from an address its Allowed IP addresses accept. Also answers the integration's id and token.
 */
export async function integrationPrincipal(
  T: TestAgency,
  scopes: string[],
  options: {
    locationId?: string;
    name?: string;
    rails?: Omit<PrivateIntegrationInput, "name" | "scopes">;
    now?: Date;
  } = {},
): Promise<Principal & { integrationId: string; token: string }> {
  const now = options.now ?? new Date();
  const { integration, token } = await makeIntegration(T, {
    locationId: options.locationId,
    name: options.name ?? `Caller ${scopes[0]}`,
    scopes,
    ...options.rails,
    now,
  });
  const verified = await verifyPrivateIntegrationToken(token, now, {
    clientAddress: addressAllowedBy(options.rails?.allowedIpAddresses),
  });
  if (!verified.ok) throw new Error(`the new token did not verify: ${verified.reason}`);
  return { ...verified.principal, integrationId: integration.id, token };
}
