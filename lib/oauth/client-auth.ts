// Over 250 lines on purpose: every way an app authenticates (Basic, form, cached, private_key_jwt) and their one refusal text, kept together so they stay alike.
import type { AppView } from "@/lib/apps/app-view";
import { currentTime } from "@/lib/clock";
import { cachedRead, peekCachedRead } from "@/lib/db/read-cache";
import { authenticateByAssertion, type PendingAssertion, verifyAssertion } from "./client-assertion";
import { findAppByClientId } from "./client-lookup";
import { acceptedSecretHash, noteClientSecretUse } from "./client-secret";
import { invalidClient, invalidRequest } from "./errors";

/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3.1):
 * `client_id` + `client_secret` in the form (client_secret_post) or HTTP Basic
 * (client_secret_basic), never both. A failure is 401 invalid_client, with
 * `WWW-Authenticate: Basic` when the client tried Basic (RFC 6749 §5.2).
 */

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "private_key_jwt";

export interface AuthenticatedClient {
  app: AppView;
  method: ClientAuthMethod;
  /**
   * The stored hash the secret matched, as read: the current secret's, or the previous one's inside
   * its overlap (./client-secret.ts). A lookup from the read cache may be up to a second old, so a
   * grant that issues checks in its own statement that the app still accepts it (a secret replaced
   * twice or revoked stops at once) and throws `ClientChanged` when it does not.
   * Null when the client authenticated with a key (private_key_jwt): the key's row was found on
   * the database when the assertion's `jti` was consumed, so there is nothing to check again.
   */
  secretHash: string | null;
  /**
   * private_key_jwt with `deferAssertion`: the verified assertion whose `jti` the grant's own
   * statement must consume before it issues anything (installation tokens: one round trip).
   */
  assertion?: PendingAssertion;
}

export interface ClientAuthOptions {
  /**
   * Look the app up through the read cache (lib/db/read-cache.ts). Only for callers that check
   * `secretHash` against the database in the statement that acts (the token endpoint's grants).
   */
  cached?: boolean;
  /** When the request is answered: the previous secret works until its overlap ends. Default: now. */
  now?: Date;
  /**
   * private_key_jwt: verify the assertion but leave its `jti` to the caller, which consumes it in
   * the statement that acts (`AuthenticatedClient.assertion`). Only for a caller that does.
   */
  deferAssertion?: boolean;
}

/** The app's secret changed after the (cached) lookup the client was authenticated with. */
export class ClientChanged extends Error {
  constructor() {
    super("The client secret changed since the client was authenticated.");
    this.name = "ClientChanged";
  }
}

export function clientChanged(): ClientChanged {
  return new ClientChanged();
}

const basicChallenge = { "www-authenticate": 'Basic realm="oauth", charset="UTF-8"' };

/** RFC 6749 §2.3.1: client_id and client_secret are form-urlencoded before Basic encoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}

function readBasic(header: string): { clientId: string; clientSecret: string } {
  const bad = () =>
    invalidClient(
      "The Authorization header is not valid HTTP Basic. Send base64(client_id:client_secret), or put client_id and client_secret in the form instead.",
      "malformed basic credentials",
      basicChallenge,
    );
  const encoded = header.slice("basic ".length).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw bad();
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw bad();
  let credentials: { clientId: string; clientSecret: string };
  try {
    credentials = { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw bad();
  }
  // PostgreSQL text cannot hold NUL: no client id or secret contains one.
  if (`${credentials.clientId}${credentials.clientSecret}`.includes("\u0000")) throw bad();
  return credentials;
}

export async function authenticateClient(
  request: Request,
  form: Record<string, string | undefined>,
  options: ClientAuthOptions = {},
): Promise<AuthenticatedClient> {
  if (sendsAssertion(form)) {
    return authenticateWithKey(request, form, options.now ?? currentTime(), options.deferAssertion === true);
  }
  const { clientId, clientSecret, method } = presentedCredentials(request, form);
  const verified = await verifyClientSecret(
    clientId,
    clientSecret,
    method === "client_secret_basic" ? basicChallenge : undefined,
    options.cached === true,
    options.now ?? currentTime(),
  );
  return { app: verified.app, method, secretHash: verified.secretHash };
}

/**
 * `authenticateClient(request, form, { cached: true })` answered at once, without a promise, when
 * the read cache holds the app and the secret matches it (every refresh of a busy app); otherwise
 * undefined, and the caller awaits `authenticateClient`, which decides a refusal on the database.
 * Malformed credentials throw here exactly as there.
 */
export function authenticateCachedClient(
  request: Request,
  form: Record<string, string | undefined>,
  now = currentTime(),
): AuthenticatedClient | undefined {
  if (sendsAssertion(form)) return undefined;
  const { clientId, clientSecret, method } = presentedCredentials(request, form);
  const app = cacheableClientId(clientId) ? peekCachedRead<StoredClient>(clientKey(clientId))?.value : undefined;
  // The same HMAC and comparisons whether or not the app is cached: a refusal then costs an unknown
  // client_id what it costs a wrong secret here too (verifyClientSecret says why).
  const secretHash = acceptedSecretHash(clientSecret, app, now);
  if (secretHash === undefined || !app) return undefined;
  noteClientSecretUse(app.id, secretHash, now);
  return { app: viewOf(app), method, secretHash };
}

const sendsAssertion = (form: Record<string, string | undefined>) =>
  form.client_assertion !== undefined || form.client_assertion_type !== undefined;

/** private_key_jwt (./client-assertion.ts): the assertion is the only credential sent. */
async function authenticateWithKey(
  request: Request,
  form: Record<string, string | undefined>,
  now: Date,
  deferAssertion: boolean,
): Promise<AuthenticatedClient> {
  if (/^basic\s/i.test(request.headers.get("authorization") ?? "") || form.client_secret !== undefined) {
    throw invalidRequest(
      "Authenticate the client one way only: a client_assertion, HTTP Basic or client_secret, not two of them.",
      "assertion and secret",
    );
  }
  if (deferAssertion) {
    const { app, pending } = await verifyAssertion(form, now);
    return { app: viewOf(app), method: "private_key_jwt", secretHash: null, assertion: pending };
  }
  const { app } = await authenticateByAssertion(form, now);
  return { app: viewOf(app), method: "private_key_jwt", secretHash: null };
}

/** The client's credentials as presented (HTTP Basic or the form), or the refusal of their shape. */
function presentedCredentials(
  request: Request,
  form: Record<string, string | undefined>,
): { clientId: string; clientSecret: string; method: ClientAuthMethod } {
  const authorization = request.headers.get("authorization") ?? "";
  const usesBasic = /^basic\s/i.test(authorization);
  let method: ClientAuthMethod;
  let clientId: string;
  let clientSecret: string;

  if (usesBasic) {
    if (form.client_secret !== undefined) {
      throw invalidRequest(
        "Authenticate the client one way only: HTTP Basic or client_secret in the form, not both.",
        "basic and post",
      );
    }
    ({ clientId, clientSecret } = readBasic(authorization));
    if (form.client_id !== undefined && form.client_id !== clientId) {
      throw invalidRequest("The client_id in the form differs from the one in the Authorization header.");
    }
    method = "client_secret_basic";
  } else {
    // RFC 6749 §5.2: no client authentication included is invalid_client (401), like a wrong one.
    if (!form.client_id) {
      throw invalidClient(
        "client_id is required: send client_id and client_secret in the form, or use HTTP Basic authentication.",
        "no client authentication",
      );
    }
    if (!form.client_secret) {
      throw invalidClient(
        "client_secret is required: send it in the form with client_id, or use HTTP Basic authentication.",
        "no client secret",
      );
    }
    clientId = form.client_id;
    clientSecret = form.client_secret;
    method = "client_secret_post";
  }
  return { clientId, clientSecret, method };
}

/**
 * HTTP Basic only (GET endpoints of an app, e.g. /webhooks/events): no form to carry credentials.
 * Missing or wrong credentials are 401 invalid_client with a Basic challenge, as at /oauth/token.
 */
export async function authenticateClientBasic(request: Request, now = currentTime()): Promise<AppView> {
  const authorization = request.headers.get("authorization") ?? "";
  if (!/^basic\s/i.test(authorization)) {
    throw invalidClient(
      "Authenticate with the app's client credentials as HTTP Basic: Authorization: Basic base64(client_id:client_secret).",
      "no basic credentials",
      basicChallenge,
    );
  }
  const { clientId, clientSecret } = readBasic(authorization);
  return (await verifyClientSecret(clientId, clientSecret, basicChallenge, false, now)).app;
}

type StoredClient = Awaited<ReturnType<typeof findAppByClientId>>;

const cacheableClientId = (clientId: string) => clientId !== "" && clientId.length <= 200;
const clientKey = (clientId: string) => `client:${clientId}`;

/**
 * Apps change rarely: a found one may answer from the read cache (emptied by the App trigger's
 * NOTIFY). `fromDatabase` says whether this answer was read just now, so a refusal re-reads only an
 * answer that came from the cache.
 */
async function findClient(clientId: string, cached: boolean): Promise<{ app: StoredClient; fromDatabase: boolean }> {
  if (!cached || !cacheableClientId(clientId)) return { app: await findAppByClientId(clientId), fromDatabase: true };
  let fromDatabase = false;
  const app = await cachedRead(
    clientKey(clientId),
    () => {
      fromDatabase = true;
      return findAppByClientId(clientId);
    },
    (found) => found !== undefined,
  );
  return { app, fromDatabase };
}

/**
 * One description for an unknown client_id and a wrong secret (SPEC.md, The edges of the HTTP
 * server): anything else would tell a stranger which client ids exist. The log's detail says which.
 */
const CLIENT_REFUSED =
  "Client authentication failed: the client_id and client_secret do not match an app. Copy both from the app's page under Developer › Apps (a secret replaced by a new one works only until its overlap ends or it is revoked).";

async function verifyClientSecret(
  clientId: string,
  clientSecret: string,
  headers: Record<string, string> | undefined,
  cached: boolean,
  now: Date,
): Promise<{ app: AppView; secretHash: string }> {
  let { app, fromDatabase } = await findClient(clientId, cached);
  // Dummy hashes cost an unknown client_id the same HMAC and comparisons as a wrong secret.
  let secretHash = acceptedSecretHash(clientSecret, app, now);
  if (secretHash === undefined && !fromDatabase) {
    // Every refusal is decided on the database: the secret may have been replaced a moment ago.
    // An answer read just now is not read again, so an unknown client_id and a wrong secret both
    // cost exactly one database read.
    app = await findAppByClientId(clientId);
    secretHash = acceptedSecretHash(clientSecret, app, now);
  }
  if (!app || secretHash === undefined) {
    throw invalidClient(CLIENT_REFUSED, app ? `wrong secret for client ${app.clientId}` : "unknown client", headers);
  }
  noteClientSecretUse(app.id, secretHash, now);
  return { app: viewOf(app), secretHash };
}

/** A stored app without its secrets' hashes; one per stored app object, so a cached app is copied once. */
const views = new WeakMap<NonNullable<StoredClient>, AppView>();

function viewOf(app: NonNullable<StoredClient>): AppView {
  let view = views.get(app);
  if (!view) {
    const {
      clientSecretHash: _current,
      previousClientSecretHash: _previous,
      previousClientSecretExpiresAt: _until,
      ...rest
    } = app;
    view = rest;
    views.set(app, view);
  }
  return view;
}
