// The bench's peer (L), the physical limit of our three hot paths: a hand-written
// node:http server that gives the same answers as ours with nothing in between, on OUR database:
// - GET /locations/{id} with a private-integration token: the token's keyed hash (HMAC-SHA-256
//   under the key our server derives from SERVER_SECRET) looked up in a Map loaded at start;
// - GET /locations/{id} with an access token: node:crypto ES256 verification of our signing key's
//   JWTs (the public keys loaded at start), expiry and issuer checked;
// - POST /oauth/token, grant_type=refresh_token: the client checked against a Map loaded at start,
//   then ONE prepared statement that consumes the presented refresh token and inserts its successor
//   and the access-token row, then an ES256 signature.
// No revocation, no rate limit, no usage counting, no trace id: what is left is the work itself.
// Run as its own process by the bench:
//   tsx scripts/bench/peers/limit.ts --port <n> --database <postgresql://…> [--unnamed]
// --unnamed: its statement runs unnamed, as ours does behind a transaction-mode pooler (PgBouncer
// 1.18 keeps no prepared statement from one transaction to the next).
// SERVER_SECRET and APP_URL come from the environment (the bench's own); prints "ready" when it serves.
import {
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
  timingSafeEqual,
  verify,
} from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import { parseArgs } from "node:util";
import pg from "pg";
import { LIMIT_ROTATE } from "./limit-statement";

const { values: flags } = parseArgs({
  options: { port: { type: "string" }, database: { type: "string" }, unnamed: { type: "boolean", default: false } },
});
if (!flags.port || !flags.database) throw new Error("--port and --database are required.");
const secret = process.env.SERVER_SECRET;
const issuer = process.env.APP_URL;
if (!secret || !issuer) throw new Error("SERVER_SECRET and APP_URL are required.");

// As many connections as our server's pg pool and (R)'s.
const pool = new pg.Pool({ connectionString: flags.database, max: 20 });
const hashKey = Buffer.from(hkdfSync("sha256", secret, "token-service", "secret-hash", 32));
const keyedHash = (value: string) => createHmac("sha256", hashKey).update(value, "utf8").digest("hex");

interface LocationRow {
  id: string;
  companyId: string;
  name: string;
  createdAt: Date;
}
const locations = new Map<string, string>(); // id → the answer's body
const locationCompany = new Map<string, string>();
const integrations = new Map<string, { locationId: string | null; companyId: string }>(); // token hash → integration
const verifyKeys = new Map<string, KeyObject>(); // kid → public key
const clients = new Map<string, { appId: string; secretHash: string }>(); // client_id → app

async function load(): Promise<void> {
  const rows = (await pool.query<LocationRow>(`SELECT id, "companyId", name, "createdAt" FROM "Location"`)).rows;
  for (const row of rows) {
    const location = { id: row.id, companyId: row.companyId, name: row.name, createdAt: row.createdAt.toISOString() };
    locations.set(row.id, JSON.stringify({ location }));
    locationCompany.set(row.id, row.companyId);
  }
  const tokens = await pool.query<{ tokenHash: string; locationId: string | null; companyId: string }>(
    `SELECT t."tokenHash", i."locationId", i."companyId" FROM "PrivateIntegrationToken" t
     JOIN "PrivateIntegration" i ON i.id = t."integrationId" WHERE t."revokedAt" IS NULL`,
  );
  for (const t of tokens.rows) integrations.set(t.tokenHash, { locationId: t.locationId, companyId: t.companyId });
  const keys = await pool.query<{ kid: string; publicJwk: Record<string, string> }>(
    `SELECT kid, "publicJwk" FROM "SigningKey" WHERE use = 'access_token'`,
  );
  for (const k of keys.rows) verifyKeys.set(k.kid, createPublicKey({ key: k.publicJwk, format: "jwk" }));
  const apps = await pool.query<{ id: string; clientId: string; clientSecretHash: string }>(
    `SELECT id, "clientId", "clientSecretHash" FROM "App"`,
  );
  for (const a of apps.rows) clients.set(a.clientId, { appId: a.id, secretHash: a.clientSecretHash });
}

// The peer signs with a key of its own (same curve, same cost); ours stays encrypted in our database.
const signing = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signingKid = randomUUID();

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  response.end(body);
}
const refuse = (response: ServerResponse, status: number, error: string) =>
  send(response, status, JSON.stringify({ error, statusCode: status }));

/** The sub-account id of a verified access token, or undefined. */
function accessTokenLocation(token: string): { locationId?: string; companyId: string } | undefined {
  const first = token.indexOf(".");
  const second = token.indexOf(".", first + 1);
  if (first < 0 || second < 0) return undefined;
  // The header is read before the signature is checked: a malformed one is a bad token (401), not a crash.
  let header: { kid?: unknown };
  try {
    header = JSON.parse(Buffer.from(token.slice(0, first), "base64url").toString()) as { kid?: unknown };
  } catch {
    return undefined;
  }
  const key = typeof header?.kid === "string" ? verifyKeys.get(header.kid) : undefined;
  if (!key) return undefined;
  const input = Buffer.from(token.slice(0, second));
  const signature = Buffer.from(token.slice(second + 1), "base64url");
  if (!verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, signature)) return undefined;
  const claims = JSON.parse(Buffer.from(token.slice(first + 1, second), "base64url").toString()) as {
    exp: number;
    iss: string;
    locationId?: string;
    companyId: string;
  };
  if (claims.iss !== issuer || claims.exp * 1000 <= Date.now()) return undefined;
  return claims;
}

function readLocation(authorization: string | undefined, locationId: string, response: ServerResponse): void {
  const token = authorization?.startsWith("Bearer ") ? authorization.slice(7) : "";
  const caller = token.startsWith("pit-") ? integrations.get(keyedHash(token)) : accessTokenLocation(token);
  if (!caller) {
    refuse(response, 401, "invalid_token");
    return;
  }
  const body = locations.get(locationId);
  const mine = caller.locationId
    ? caller.locationId === locationId
    : locationCompany.get(locationId) === caller.companyId;
  if (!body || !mine) {
    refuse(response, 403, "forbidden");
    return;
  }
  send(response, 200, body);
}

const REFRESH_TTL_MS = 365 * 86_400_000;
const ACCESS_TTL_S = 86_399;
/** One statement: consume the presented token, then write its successor and the access token's row. */
const rotate = flags.unnamed ? { text: LIMIT_ROTATE } : { name: "limit-rotate", text: LIMIT_ROTATE };

async function refresh(body: string, response: ServerResponse): Promise<void> {
  const form = new URLSearchParams(body);
  const client = clients.get(form.get("client_id") ?? "");
  const presented = Buffer.from(keyedHash(form.get("client_secret") ?? ""), "hex");
  if (!client || !timingSafeEqual(presented, Buffer.from(client.secretHash, "hex"))) {
    refuse(response, 401, "invalid_client");
    return;
  }
  const token = form.get("refresh_token");
  if (form.get("grant_type") !== "refresh_token" || !token) {
    refuse(response, 400, "invalid_request");
    return;
  }
  const now = new Date();
  const successor = randomBytes(32).toString("base64url");
  const successorId = randomUUID();
  const jti = randomUUID();
  const iat = Math.floor(now.getTime() / 1000);
  const values = [keyedHash(token), client.appId, successorId, keyedHash(successor)];
  values.push(new Date(now.getTime() + REFRESH_TTL_MS).toISOString(), now.toISOString(), jti);
  values.push(new Date((iat + ACCESS_TTL_S) * 1000).toISOString());
  const { rows } = await pool.query<{
    userId: string;
    companyId: string;
    locationId: string | null;
    scopes: string[];
    userType: string;
  }>({ ...rotate, values });
  const grant = rows[0];
  if (!grant) {
    refuse(response, 400, "invalid_grant");
    return;
  }
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const claims = {
    client_id: form.get("client_id"),
    authClass: grant.userType,
    authClassId: grant.locationId ?? grant.companyId,
    companyId: grant.companyId,
    ...(grant.locationId ? { locationId: grant.locationId } : {}),
    scope: grant.scopes.join(" "),
    iss: issuer,
    sub: grant.userId,
    jti,
    iat,
    exp: iat + ACCESS_TTL_S,
  };
  const input = `${part({ alg: "ES256", kid: signingKid, typ: "JWT" })}.${part(claims)}`;
  const signature = sign("sha256", Buffer.from(input), { key: signing.privateKey, dsaEncoding: "ieee-p1363" });
  send(
    response,
    200,
    JSON.stringify({
      access_token: `${input}.${signature.toString("base64url")}`,
      token_type: "Bearer",
      expires_in: ACCESS_TTL_S,
      refresh_token: successor,
      scope: claims.scope,
      refreshTokenId: successorId,
      userType: grant.userType,
      companyId: grant.companyId,
      locationId: grant.locationId,
      isBulkInstallation: false,
      userId: grant.userId,
    }),
  );
}

await load();
const server = createServer((request, response) => {
  const url = request.url ?? "/";
  if (request.method === "GET" && url.startsWith("/locations/")) {
    readLocation(request.headers.authorization, url.slice(11).replace(/\/$/, ""), response);
    return;
  }
  if (request.method === "POST" && (url === "/oauth/token" || url === "/oauth/token/")) {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      refresh(Buffer.concat(chunks).toString(), response).catch(() => refuse(response, 500, "server_error"));
    });
    return;
  }
  refuse(response, 404, "not_found");
});
server.listen(Number(flags.port), () => console.log("ready"));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
