/**
 * Every signed-in screen of the admin app, by path, for the specs that walk them all (the same
 * screens e2e/accessibility.spec.ts checks one state at a time). `every page of app/ was checked`
 * there fails when a page is added without a check, which keeps this list honest too.
 */
export function signedInScreens(ids: { locationId: string; appId: string; installPath: string }): string[] {
  return [
    "/settings",
    "/settings/labs",
    "/settings/team",
    "/settings/account",
    "/settings/notifications",
    "/settings/private-integrations",
    `/location/${ids.locationId}/settings`,
    `/location/${ids.locationId}/settings/private-integrations`,
    "/marketplace",
    "/developer/apps",
    "/developer/apps/new",
    `/developer/apps/${ids.appId}`,
    `/developer/apps/${ids.appId}/webhooks`,
    ids.installPath,
  ];
}
