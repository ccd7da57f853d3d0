/**
 * The tags of /openapi.json and /docs, in the order they are shown, with their prose: the one place
 * an operation's `tag` must be found (a TagName). Operations are shown by tag in this order; within
 * a tag, those `first` names come first in that order (a reading order: the OAuth flow), then every
 * other operation of the tag in the route table's order (by path), so a new endpoint needs no entry.
 */
const declared = [
  { name: "Sub-accounts", description: "Reading a sub-account with an access token or a private-integration token." },
  {
    name: "Contacts",
    description:
      "Creating and reading a sub-account's contacts; needs a Location token or a sub-account private integration.",
  },
  {
    name: "OAuth",
    description:
      "Installing apps and the tokens they get: RFC 6749 with PKCE, RFC 7009 revocation, RFC 7662 introspection.",
    first: ["authorize", "token", "locationToken", "installedLocations", "revoke", "introspect"],
  },
  {
    name: "Private integrations",
    description:
      "Managing the agency's and its sub-accounts' private integrations from automation (a secret manager, CI): authenticated by an agency private integration with private-integrations.write (private-integrations.readonly to read), under the same rules and audit log as the screens.",
    first: [
      "listPrivateIntegrations",
      "createPrivateIntegration",
      "updatePrivateIntegration",
      "rotatePrivateIntegration",
      "expireOldPrivateIntegrationToken",
      "cancelPrivateIntegrationRotation",
      "deletePrivateIntegration",
      "privateIntegrationUsage",
    ],
  },
  {
    name: "Leaked tokens",
    description: "Revoking leaked tokens: by whoever holds them, and by GitHub's secret scanning.",
    first: ["revokeLeakedCredentials", "githubSecretScanning"],
  },
  { name: "Webhooks", description: "The app's events: catching up on what a webhook delivery missed." },
  {
    name: "Discovery",
    description: "Metadata and public keys: RFC 8414 metadata, the JWKS of access tokens, the webhook signing keys.",
  },
  { name: "Service", description: "The service itself: health and this document." },
] as const satisfies readonly { name: string; description: string; first?: readonly string[] }[];

export type TagName = (typeof declared)[number]["name"];

export const tags: readonly { name: TagName; description: string; first?: readonly string[] }[] = declared;
