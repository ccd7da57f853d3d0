import type { AppView } from "@/lib/apps/app-view";
import { db } from "@/lib/db/client";
import { type Scope, splitScopeString } from "@/lib/scopes";
import { findAppByClientId } from "../client-lookup";
import { type AuthorizeParams, DUPLICATE, redirectWith } from "./params";

/**
 * The install (authorization) request's checks, RFC 6749 §4.1 with PKCE (RFC 7636, S256 only).
 * Until client_id and redirect_uri are known good, every problem is shown on our own screen and
 * never redirected (§4.1.2.1); after that, request errors go back to the registered redirect URI.
 */

const MAX_STATE_LENGTH = 1000;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface ValidAuthorizeRequest {
  app: AppView;
  developerName: string;
  redirectUri: string;
  scopes: Scope[];
  state?: string;
  codeChallenge?: string;
}

type ScreenProblem = { ok: false; kind: "screen"; status: 400; title: string; message: string };

export type AuthorizeCheck =
  | { ok: true; request: ValidAuthorizeRequest }
  /** Shown on our screen; never redirected, the redirect URI is not trusted. */
  | ScreenProblem
  /** Sent back to the app: `redirectTo` is the registered URI with error, error_description and state. */
  | { ok: false; kind: "redirect"; redirectTo: string; error: string; message: string };

/** A request error to send back to the app (RFC 6749 §4.1.2.1). */
interface RequestProblem {
  error: string;
  message: string;
}

export async function validateAuthorizeRequest(params: AuthorizeParams): Promise<AuthorizeCheck> {
  const client = await checkClient(params);
  if (!client.ok) return client;
  const { app, redirectUri } = client;
  const state = params.state ?? undefined;
  const back = (problem: RequestProblem) => sendBack(redirectUri, state, problem);

  const problem = duplicateParameter(params) ?? stateTooLong(state) ?? unsupportedResponseType(params);
  if (problem) return back(problem);
  const scopes = requestedScopes(app, params.scope);
  if (!Array.isArray(scopes)) return back(scopes);
  const pkce = pkceProblem(params);
  if (pkce) return back(pkce);

  const developer = await db().company.findUnique({ where: { id: app.companyId }, select: { name: true } });
  return {
    ok: true,
    request: {
      app,
      developerName: developer?.name ?? "",
      redirectUri,
      scopes,
      state,
      codeChallenge: params.code_challenge ?? undefined,
    },
  };
}

function screen(title: string, message: string): ScreenProblem {
  return { ok: false, kind: "screen", status: 400, title, message };
}

/** The app of client_id and a redirect_uri registered for it; problems here stay on our screen. */
async function checkClient(
  params: AuthorizeParams,
): Promise<{ ok: true; app: AppView; redirectUri: string } | ScreenProblem> {
  const clientId = params.client_id;
  if (!clientId || clientId === DUPLICATE) {
    return screen(
      "This install link is incomplete",
      "The link does not say which app it is for. Ask the app's developer for a working install link.",
    );
  }
  const app = await findAppByClientId(clientId);
  if (!app) {
    return screen(
      "This app does not exist",
      "No app matches this install link. Ask the app's developer for a working install link.",
    );
  }
  const redirectUri = params.redirect_uri;
  if (!redirectUri || redirectUri === DUPLICATE || !app.redirectUris.includes(redirectUri)) {
    return screen(
      "This install link is not valid",
      redirectUri
        ? `This link would send you back to an address that is not registered for ${app.name}. Its developer must use one of the app's registered redirect addresses.`
        : `This link does not say where to send you back after installing. ${app.name}'s developer must add one of the app's registered redirect addresses.`,
    );
  }
  return { ok: true, app, redirectUri };
}

function sendBack(redirectUri: string, state: string | undefined, { error, message }: RequestProblem): AuthorizeCheck {
  return {
    ok: false,
    kind: "redirect",
    error,
    message,
    redirectTo: redirectWith(redirectUri, {
      error,
      error_description: message,
      state: state === DUPLICATE ? undefined : state,
    }),
  };
}

function duplicateParameter(params: AuthorizeParams): RequestProblem | undefined {
  for (const [name, value] of Object.entries(params)) {
    if (value === DUPLICATE)
      return { error: "invalid_request", message: `The parameter ${name} was sent more than once.` };
  }
  return undefined;
}

function stateTooLong(state: string | undefined): RequestProblem | undefined {
  if (state === undefined || state.length <= MAX_STATE_LENGTH) return undefined;
  return { error: "invalid_request", message: `state must be at most ${MAX_STATE_LENGTH} characters.` };
}

function unsupportedResponseType(params: AuthorizeParams): RequestProblem | undefined {
  if (params.response_type === "code") return undefined;
  return { error: "unsupported_response_type", message: "response_type must be code." };
}

/** The scopes asked for, in the app's order; all the app's scopes when none are asked for. */
function requestedScopes(app: AppView, scope: string | null | undefined): Scope[] | RequestProblem {
  if (scope === null || scope === undefined || scope.trim() === "") return app.scopes;
  const { known, unknown } = splitScopeString(scope);
  if (unknown.length) return { error: "invalid_scope", message: `Unknown scope: ${unknown.slice(0, 5).join(", ")}.` };
  const notGranted = known.filter((s) => !app.scopes.includes(s));
  if (notGranted.length) {
    return {
      error: "invalid_scope",
      message: `The app is not registered for these scopes: ${notGranted.join(", ")}.`,
    };
  }
  return app.scopes.filter((s) => known.includes(s));
}

/** PKCE is optional, but when sent it must be S256 with a well-formed challenge. */
function pkceProblem(params: AuthorizeParams): RequestProblem | undefined {
  const challenge = params.code_challenge ?? undefined;
  const method = params.code_challenge_method ?? undefined;
  if (challenge === undefined && method !== undefined) {
    return { error: "invalid_request", message: "code_challenge_method was sent without code_challenge." };
  }
  if (challenge === undefined) return undefined;
  if (method !== "S256") {
    return {
      error: "invalid_request",
      message: "Only code_challenge_method=S256 is supported; send it with the code_challenge.",
    };
  }
  if (!PKCE_CHALLENGE.test(challenge)) {
    return {
      error: "invalid_request",
      message: "code_challenge must be the base64url SHA-256 of the code_verifier (43 characters).",
    };
  }
  return undefined;
}
