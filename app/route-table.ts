import { type DirectRoute, route } from "@/lib/api/direct-router";
import * as jwks from "./.well-known/jwks.json/route";
import * as authorizationServer from "./.well-known/oauth-authorization-server/route";
import * as webhookKeys from "./.well-known/webhook-keys/route";
import * as webhookPublicKey from "./.well-known/webhook-public-key.pem/route";
import * as health from "./api/health/route";
import * as operator from "./api/operator/route";
import * as contact from "./contacts/[contactId]/route";
import * as contacts from "./contacts/route";
import * as githubSecretScanning from "./credentials/github-secret-scanning/route";
import * as revokeCredentials from "./credentials/revoke/route";
import * as location from "./locations/[locationId]/route";
import * as installedLocations from "./oauth/installedLocations/route";
import * as introspect from "./oauth/introspect/route";
import * as locationToken from "./oauth/locationToken/route";
import * as revoke from "./oauth/revoke/route";
import * as token from "./oauth/token/route";
import * as openapi from "./openapi.json/route";
import * as webhookEvents from "./webhooks/events/route";

/**
 * Every route of the HTTP API, which scripts/serve.mjs answers ahead of Next.js's router with the
 * modules' own handlers (lib/api/direct-router.ts says why). Each path is its folder under app/;
 * route-table.test.ts keeps this list equal to the route.ts files, except the two left to
 * Next.js: next-auth's sign-in routes (they need Next.js's cookies) and the catch-all 404
 * (`[...path]`, which shares its paths with the screens).
 */
export const apiRoutes: DirectRoute[] = [
  route("/api/health", health),
  route("/oauth/token", token),
  route("/oauth/locationToken", locationToken),
  route("/oauth/installedLocations", installedLocations),
  route("/oauth/introspect", introspect),
  route("/oauth/revoke", revoke),
  route("/locations/[locationId]", location),
  route("/contacts", contacts),
  route("/contacts/[contactId]", contact),
  route("/webhooks/events", webhookEvents),
  route("/credentials/revoke", revokeCredentials),
  route("/credentials/github-secret-scanning", githubSecretScanning),
  route("/.well-known/jwks.json", jwks),
  route("/.well-known/oauth-authorization-server", authorizationServer),
  route("/.well-known/webhook-keys", webhookKeys),
  route("/.well-known/webhook-public-key.pem", webhookPublicKey),
  route("/openapi.json", openapi),
  route("/api/operator", operator),
];
