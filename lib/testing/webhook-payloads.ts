/**
 * SPEC.md › Webhooks, INSTALL payload: its fields in SPEC.md's order, written from SPEC.md rather
 * than read from lib/webhooks, so a test compares what we send with what the spec says.
 */
export const installPayloadFields: readonly string[] = [
  "type",
  "appId",
  "versionId",
  "installType",
  "locationId",
  "companyId",
  "userId",
  "companyName",
  "isWhitelabelCompany",
  "whitelabelDetails",
  "timestamp",
  "webhookId",
];
