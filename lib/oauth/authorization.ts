import { recordAudit } from "@/lib/accounts/audit";
import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyAdmin, isAgencyRole } from "@/lib/accounts/roles";
import { hashSecret, randomSecret } from "@/lib/crypto/secrets";
import { db, type Tx } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { DomainError, forbidden, invalid } from "@/lib/errors";
import { Prisma, type UserType } from "@/lib/generated/prisma/client";
import { type Scope, splitScopeString } from "@/lib/scopes";
import { type AppView, findAppByClientId } from "./apps";
import { revokeGrants } from "./grants/revoke-grants";
import { enqueueInstallEvents } from "./install-events";
import { redirectWith } from "./redirect-uris";

/**
 * The install (authorization) screen's rules, RFC 6749 §4.1 with PKCE (RFC 7636, S256 only).
 * Until client_id and redirect_uri are known good, every problem is shown on our own screen and
 * never redirected (§4.1.2.1); after that, request errors go back to the registered redirect URI.
 */

export const AUTHORIZATION_CODE_TTL_MS = 10 * 60_000;
const MAX_STATE_LENGTH = 1000;
const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

export interface AuthorizeParams {
  response_type?: string | null;
  client_id?: string | null;
  redirect_uri?: string | null;
  scope?: string | null;
  state?: string | null;
  code_challenge?: string | null;
  code_challenge_method?: string | null;
}

export interface ValidAuthorizeRequest {
  app: AppView;
  developerName: string;
  redirectUri: string;
  scopes: Scope[];
  state?: string;
  codeChallenge?: string;
}

export type AuthorizeCheck =
  | { ok: true; request: ValidAuthorizeRequest }
  /** Shown on our screen; never redirected, the redirect URI is not trusted. */
  | { ok: false; kind: "screen"; status: 400; title: string; message: string }
  /** Sent back to the app: `redirectTo` is the registered URI with error, error_description and state. */
  | { ok: false; kind: "redirect"; redirectTo: string; error: string; message: string };

/** Reads the query of /oauth/chooselocation; a parameter given twice counts as invalid. */
export function authorizeParamsFrom(search: URLSearchParams | Record<string, string | string[] | undefined>) {
  const get = (name: keyof AuthorizeParams): string | null => {
    const value = search instanceof URLSearchParams ? search.getAll(name) : search[name];
    if (value === undefined) return null;
    if (Array.isArray(value)) return value.length === 1 ? (value[0] ?? null) : "\u0000duplicate";
    return value;
  };
  return {
    response_type: get("response_type"),
    client_id: get("client_id"),
    redirect_uri: get("redirect_uri"),
    scope: get("scope"),
    state: get("state"),
    code_challenge: get("code_challenge"),
    code_challenge_method: get("code_challenge_method"),
  } satisfies AuthorizeParams;
}

const DUPLICATE = "\u0000duplicate";
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

function screen(title: string, message: string): AuthorizeCheck {
  return { ok: false, kind: "screen", status: 400, title, message };
}

export async function validateAuthorizeRequest(params: AuthorizeParams): Promise<AuthorizeCheck> {
  const clientId = params.client_id;
  if (!clientId || clientId === DUPLICATE) {
    return screen(
      "This install link is incomplete",
      "The link has no client_id, so we cannot tell which app it is for. Ask the app's developer for a working install link.",
    );
  }
  const app = await findAppByClientId(clientId);
  if (!app) {
    return screen(
      "This app does not exist",
      "No app has the client_id in this link. Ask the app's developer for a working install link.",
    );
  }
  const redirectUri = params.redirect_uri;
  if (!redirectUri || redirectUri === DUPLICATE || !app.redirectUris.includes(redirectUri)) {
    return screen(
      "This install link is not valid",
      redirectUri
        ? `The redirect_uri of this link is not registered for ${app.name}. Its developer must use one of the app's registered redirect URIs.`
        : `The link has no redirect_uri. ${app.name}'s developer must add one of the app's registered redirect URIs.`,
    );
  }
  const state = params.state ?? undefined;
  const back = (error: string, message: string): AuthorizeCheck => ({
    ok: false,
    kind: "redirect",
    error,
    message,
    redirectTo: redirectWith(redirectUri, {
      error,
      error_description: message,
      state: state === DUPLICATE ? undefined : state,
    }),
  });
  for (const [name, value] of Object.entries(params)) {
    if (value === DUPLICATE) return back("invalid_request", `The parameter ${name} was sent more than once.`);
  }
  if (state !== undefined && state.length > MAX_STATE_LENGTH) {
    return back("invalid_request", `state must be at most ${MAX_STATE_LENGTH} characters.`);
  }
  if (params.response_type !== "code") {
    return back("unsupported_response_type", "response_type must be code.");
  }
  let scopes: Scope[] = app.scopes;
  if (params.scope !== null && params.scope !== undefined && params.scope.trim() !== "") {
    const { known, unknown } = splitScopeString(params.scope);
    if (unknown.length) return back("invalid_scope", `Unknown scope: ${unknown.slice(0, 5).join(", ")}.`);
    const notGranted = known.filter((s) => !app.scopes.includes(s));
    if (notGranted.length) {
      return back("invalid_scope", `The app is not registered for these scopes: ${notGranted.join(", ")}.`);
    }
    scopes = app.scopes.filter((s) => known.includes(s));
  }
  const challenge = params.code_challenge ?? undefined;
  const method = params.code_challenge_method ?? undefined;
  if (challenge === undefined && method !== undefined) {
    return back("invalid_request", "code_challenge_method was sent without code_challenge.");
  }
  if (challenge !== undefined) {
    if (method !== "S256") {
      return back("invalid_request", "Only code_challenge_method=S256 is supported; send it with the code_challenge.");
    }
    if (!PKCE_CHALLENGE.test(challenge)) {
      return back(
        "invalid_request",
        "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).",
      );
    }
  }
  const developer = await db().company.findUnique({ where: { id: app.companyId }, select: { name: true } });
  return {
    ok: true,
    request: {
      app,
      developerName: developer?.name ?? "",
      redirectUri,
      scopes,
      state,
      codeChallenge: challenge,
    },
  };
}

/** Where the signed-in person may install the app, or why they may not. */
export type InstallChoice =
  | {
      allowed: true;
      level: "agency";
      /** Every sub-account of the agency. */
      locations: { id: string; name: string }[];
      /** When the app is already installed at agency level: the sub-accounts chosen then. */
      installedLocationIds?: string[];
      /** Whether that install chose all sub-accounts (the screen then starts with all chosen). */
      approveAllLocations: boolean;
      /** The "Also install on sub-accounts created later" box starts checked, unless a re-install
       *  of an install that chose all sub-accounts without it shows that choice again. */
      installToFutureLocations: boolean;
    }
  | {
      allowed: true;
      level: "location";
      /** The sub-accounts the person works in. */
      locations: { id: string; name: string; installed: boolean }[];
    }
  | { allowed: false; status: 403; title: string; message: string };

/** Agency-only apps: agency owners and admins only. Everyone: any agency or sub-account user. */
export function canInstall(actor: Actor, app: Pick<AppView, "installSetting">): boolean {
  return app.installSetting === "everyone" || isAgencyAdmin(actor.role);
}

export async function installChoiceFor(actor: Actor, app: AppView): Promise<InstallChoice> {
  if (!canInstall(actor, app)) {
    return {
      allowed: false,
      status: 403,
      title: "Only agency owners and admins can install this app",
      message: `${app.name} can be installed by an agency owner or admin only. Ask one of them to install it for your agency.`,
    };
  }
  if (isAgencyRole(actor.role)) {
    const [locations, installation] = await Promise.all([
      db().location.findMany({
        where: { companyId: actor.companyId },
        select: { id: true, name: true },
        orderBy: [{ name: "asc" }, { id: "asc" }],
      }),
      db().installation.findUnique({
        where: { installKey: installKey(app.id, "Company", actor.companyId) },
        select: {
          status: true,
          approveAllLocations: true,
          installToFutureLocations: true,
          locations: { select: { locationId: true } },
        },
      }),
    ]);
    const installed = installation?.status === "installed" ? installation : undefined;
    return {
      allowed: true,
      level: "agency",
      locations,
      installedLocationIds: installed?.locations.map((l) => l.locationId),
      approveAllLocations: installed?.approveAllLocations ?? false,
      installToFutureLocations: installed?.approveAllLocations ? installed.installToFutureLocations : true,
    };
  }
  const locations = await db().location.findMany({
    where: { companyId: actor.companyId, id: { in: actor.locationIds } },
    select: {
      id: true,
      name: true,
      installations: { where: { appId: app.id, status: "installed" }, select: { id: true } },
    },
    orderBy: [{ name: "asc" }, { id: "asc" }],
  });
  if (locations.length === 0) {
    return {
      allowed: false,
      status: 403,
      title: "You have no sub-account to install this app in",
      message: "Ask your agency to give you access to a sub-account, then open the install link again.",
    };
  }
  return {
    allowed: true,
    level: "location",
    locations: locations.map((l) => ({ id: l.id, name: l.name, installed: l.installations.length > 0 })),
  };
}

export function installKey(appId: string, userType: UserType, targetId: string): string {
  return `${appId}:${userType}:${targetId}`;
}

/**
 * What the person chose on the screen: sub-accounts for an agency install, one for a sub-account
 * install. `allLocations` is the screen's "All sub-accounts": every sub-account the agency has
 * when the install is approved (so also one created while the screen was open), and
 * `locationIds` is then not needed. Choosing every sub-account one by one counts as all too.
 * `installToFutureLocations` ("Also install on sub-accounts created later") counts only with all.
 */
export type InstallTarget =
  | { level: "agency"; locationIds: string[]; allLocations?: boolean; installToFutureLocations?: boolean }
  | { level: "location"; locationId: string };

export interface ApproveInstallOptions {
  actor: Actor;
  params: AuthorizeParams;
  target: InstallTarget;
  now?: Date;
}

export interface ApprovedInstall {
  installationId: string;
  /** `redirect_uri?code=…&state=…` */
  redirectTo: string;
  /** The authorization code (also in redirectTo); for tests and the CLI, never logged. */
  code: string;
}

/**
 * Approving the install: creates or re-authorizes the Installation, records the chosen
 * sub-accounts, writes INSTALL events and the audit entry, and issues a code, all in one
 * transaction. Everything the screen showed is checked again here.
 */
export async function approveInstall(options: ApproveInstallOptions): Promise<ApprovedInstall> {
  const { actor } = options;
  const now = options.now ?? new Date();
  const check = await validateAuthorizeRequest(options.params);
  if (!check.ok) throw invalid(check.message);
  const { app, redirectUri, scopes, state, codeChallenge } = check.request;
  if (!canInstall(actor, app)) {
    throw forbidden(`${app.name} can be installed by an agency owner or admin only.`);
  }
  const agencyLevel = isAgencyRole(actor.role);
  if (agencyLevel !== (options.target.level === "agency")) {
    throw invalid(
      agencyLevel
        ? "Agency users install apps for the agency; choose its sub-accounts."
        : "Choose the sub-account to install the app in.",
    );
  }
  const company = await db().company.findUniqueOrThrow({
    where: { id: actor.companyId },
    select: { id: true, name: true, whitelabelDomain: true, whitelabelLogoUrl: true },
  });

  let locationIds: string[];
  let userType: UserType;
  let locationId: string | null = null;
  const allLocations = options.target.level === "agency" && options.target.allLocations === true;
  if (options.target.level === "agency") {
    userType = "Company";
    locationIds = allLocations ? [] : [...new Set(options.target.locationIds)];
    const agencyLocations = await db().location.count({ where: { companyId: actor.companyId } });
    const found = await db().location.count({ where: { companyId: actor.companyId, id: { in: locationIds } } });
    if (found !== locationIds.length) throw invalid("Choose sub-accounts of your own agency.", "locationIds");
    if (!allLocations && agencyLocations > 0 && locationIds.length === 0) {
      throw invalid("Choose at least one sub-account to install the app in.", "locationIds");
    }
  } else {
    userType = "Location";
    locationId = options.target.locationId;
    const location = await db().location.findUnique({
      where: { id: locationId },
      select: { id: true, companyId: true },
    });
    if (!location || location.companyId !== actor.companyId || !actor.locationIds.includes(location.id)) {
      throw forbidden("You can install apps only in the sub-accounts you work in.");
    }
    locationIds = [locationId];
  }

  const key = installKey(app.id, userType, locationId ?? company.id);
  const code = randomSecret(32);
  const run = () =>
    db().$transaction(async (tx) => {
      let choice = { approveAllLocations: false, installToFutureLocations: false };
      if (options.target.level === "agency") {
        const all = await lockAgencyLocations(tx, company.id);
        if (allLocations) locationIds = all;
        const approveAll = allLocations || (all.length > 0 && all.every((id) => locationIds.includes(id)));
        choice = {
          approveAllLocations: approveAll,
          installToFutureLocations: approveAll && options.target.installToFutureLocations === true,
        };
      }
      const existing = await tx.installation.findUnique({
        where: { installKey: key },
        select: { id: true, status: true, locations: { select: { locationId: true } } },
      });
      const data = {
        versionId: app.versionId,
        installedByUserId: actor.id,
        scopes,
        status: "installed" as const,
        uninstalledAt: null,
        // A re-install replaces the choice: some sub-accounts turn both off.
        ...choice,
      };
      const installation = existing
        ? await tx.installation.update({ where: { id: existing.id }, data, select: { id: true } })
        : await tx.installation.create({
            data: { ...data, installKey: key, appId: app.id, companyId: company.id, locationId, userType },
            select: { id: true },
          });

      let removed: string[] = [];
      if (userType === "Company") {
        const before = existing?.status === "installed" ? existing.locations.map((l) => l.locationId) : [];
        removed = before.filter((id) => !locationIds.includes(id));
        await tx.installationLocation.deleteMany({ where: { installationId: installation.id } });
        if (locationIds.length) {
          await tx.installationLocation.createMany({
            data: locationIds.map((id) => ({ installationId: installation.id, locationId: id })),
          });
        }
        if (removed.length) {
          // Location tokens of sub-accounts no longer chosen stop working at once.
          await revokeGrants(
            tx,
            { installationId: installation.id, userType: "Location", locationId: { in: removed } },
            now,
          );
        }
      }

      await tx.authorizationCode.create({
        data: {
          codeHash: hashSecret(code),
          appId: app.id,
          installationId: installation.id,
          userId: actor.id,
          redirectUri,
          codeChallenge: codeChallenge ?? null,
          scopes,
          expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_MS),
          createdAt: now,
        },
      });
      const ctx = { app, versionId: app.versionId, company, userId: actor.id };
      await enqueueInstallEvents(tx, "INSTALL", ctx, { company: userType === "Company", locationIds }, now);
      if (removed.length)
        await enqueueInstallEvents(tx, "UNINSTALL", ctx, { company: false, locationIds: removed }, now);
      await recordAudit(tx, {
        companyId: company.id,
        locationId,
        actorUserId: actor.id,
        action: "app_installed",
        targetId: installation.id,
        details: {
          appId: app.id,
          appName: app.name,
          userType,
          locationIds,
          scopes,
          reinstall: Boolean(existing),
          ...choice,
        },
      });
      return installation.id;
    }, TRANSACTION_OPTIONS);

  let installationId: string;
  try {
    installationId = await changeCachedState(run);
  } catch (error) {
    // Two first installs of the same place at once: the loser re-authorizes the winner's row.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      installationId = await changeCachedState(run);
    else throw error;
  }
  return { installationId, code, redirectTo: redirectWith(redirectUri, { code, state }) };
}

/**
 * The agency's sub-accounts, read after locking the agency row against new ones: a sub-account
 * created meanwhile (lib/accounts/companies.ts, which holds a share lock on the same row) either
 * committed before and is listed here, or waits and then finds this installation committed, with
 * its choice, to join (lib/oauth/future-installs.ts). Either way it is never left out of "all".
 */
async function lockAgencyLocations(tx: Tx, companyId: string): Promise<string[]> {
  // NO KEY UPDATE conflicts with that share lock, not with the key-share locks of foreign keys, so
  // rows that merely reference the agency (audit entries, users) are not held up.
  await tx.$queryRaw`SELECT id FROM "Company" WHERE id = ${companyId} FOR NO KEY UPDATE`;
  const rows = await tx.location.findMany({ where: { companyId }, select: { id: true }, orderBy: { id: "asc" } });
  return rows.map((r) => r.id);
}

/** Cancel on the screen: back to the app with access_denied (RFC 6749 §4.1.2.1). */
export async function denyInstall(params: AuthorizeParams): Promise<string> {
  const check = await validateAuthorizeRequest(params);
  if (check.ok) {
    return redirectWith(check.request.redirectUri, {
      error: "access_denied",
      error_description: "The user cancelled the installation.",
      state: check.request.state,
    });
  }
  if (check.kind === "redirect") return check.redirectTo;
  throw new DomainError("invalid", check.message);
}
