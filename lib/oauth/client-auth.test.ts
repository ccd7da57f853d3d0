import { describe, expect, it } from "vitest";
import { regenerateClientSecret } from "@/lib/apps/secrets";
import { makeAgency } from "@/lib/testing/fixtures";
import { formRequest, install, installAndExchange, makeApp } from "@/lib/testing/oauth";
import { tokenEndpoint } from "./token-endpoint";

/**
 * The token endpoint may read the app from the read cache, which another instance's change
 * empties only when its NOTIFY arrives. Each grant's statement checks that the hash the client was
 * authenticated against is still the app's, so a regenerated secret stops at once all the same,
 * and a refused request consumes nothing.
 */
describe("the token endpoint with a client secret regenerated a moment ago", () => {
  it("refuses the old secret (invalid_client) without consuming the refresh token or the code", async () => {
    const agency = await makeAgency({ locations: 1 });
    const app = await makeApp(agency.company.id);
    const locationId = agency.locations[0]!.id;
    const first = await installAndExchange(agency.owner, app, { level: "agency", locationIds: [locationId] });
    const refresh = (secret: string, token: string) =>
      tokenEndpoint(
        formRequest("/oauth/token", {
          grant_type: "refresh_token",
          client_id: app.app.clientId,
          client_secret: secret,
          refresh_token: token,
        }),
      );
    // Reads the app (into the cache, when it is listening) with the current secret.
    const second = await refresh(app.clientSecret, first.refresh_token);
    const { code } = await install(agency.owner, app.app.clientId, { level: "agency", locationIds: [locationId] });
    const { clientSecret } = await regenerateClientSecret(app.app.id, agency.owner);

    await expect(refresh(app.clientSecret, second.refresh_token as string)).rejects.toMatchObject({
      code: "invalid_client",
    });
    const exchange = (secret: string) =>
      tokenEndpoint(
        formRequest("/oauth/token", {
          grant_type: "authorization_code",
          client_id: app.app.clientId,
          client_secret: secret,
          code,
          user_type: "Company",
        }),
      );
    await expect(exchange(app.clientSecret)).rejects.toMatchObject({ code: "invalid_client" });

    expect((await refresh(clientSecret, second.refresh_token as string)).refresh_token).toEqual(expect.any(String));
    expect((await exchange(clientSecret)).refresh_token).toEqual(expect.any(String));
  });
});
