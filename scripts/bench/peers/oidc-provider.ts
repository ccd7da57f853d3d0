// The bench's reference OAuth server: node-oidc-provider 9 (panva's, the reference implementation
// of OAuth semantics), rotating refresh tokens, on a minimal adapter of one JSONB table in the same
// PostgreSQL as ours, with no cache. Run as its own process by the bench:
//   tsx scripts/bench/peers/oidc-provider.ts --port <n> --database <postgresql://…> --tokens <n> --out <file>
//     --key-client <client_id> --key-jwk <public JWK as JSON>
// It seeds <n> refresh tokens, writes { baseUrl, clientId, clientSecret, refreshTokens } to <file>,
// prints "ready", and serves until it gets SIGTERM. The key client is our installation-token app
// (scenario (h)) as node-oidc-provider configures one: client_credentials only, private_key_jwt with
// the app's public key, the algorithms pinned as ours are, and tokens that live an hour as ours do.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import Provider, { type Adapter, type AdapterPayload } from "oidc-provider";
import pg from "pg";

const { values: flags } = parseArgs({
  options: {
    port: { type: "string" },
    database: { type: "string" },
    tokens: { type: "string", default: "1000" },
    out: { type: "string" },
    "key-client": { type: "string" },
    "key-jwk": { type: "string" },
  },
});
if (!flags.port || !flags.database || !flags.out || !flags["key-client"] || !flags["key-jwk"]) {
  throw new Error("--port, --database, --out, --key-client and --key-jwk are required.");
}

// As many connections as our server's pg pool, so neither side wins by holding more.
const pool = new pg.Pool({ connectionString: flags.database, max: 20 });

const schema = `
  CREATE TABLE IF NOT EXISTS oidc_payload (
    kind text NOT NULL,
    id text NOT NULL,
    payload jsonb NOT NULL,
    grant_id text,
    user_code text,
    uid text,
    expires_at timestamptz,
    consumed_at timestamptz,
    PRIMARY KEY (kind, id)
  );
  CREATE INDEX IF NOT EXISTS oidc_payload_grant_id ON oidc_payload (grant_id);
  CREATE INDEX IF NOT EXISTS oidc_payload_uid ON oidc_payload (uid);
  CREATE INDEX IF NOT EXISTS oidc_payload_user_code ON oidc_payload (user_code);`;

/** node-oidc-provider's adapter contract on one table: one statement per call, nothing cached. */
class PostgresAdapter implements Adapter {
  constructor(private readonly kind: string) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    await pool.query(
      `INSERT INTO oidc_payload (kind, id, payload, grant_id, user_code, uid, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(secs => $7::int) END)
       ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
         user_code = EXCLUDED.user_code, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at`,
      [
        this.kind,
        id,
        payload,
        payload.grantId ?? null,
        payload.userCode ?? null,
        payload.uid ?? null,
        expiresIn ?? null,
      ],
    );
  }

  private async findBy(column: "id" | "uid" | "user_code", value: string): Promise<AdapterPayload | undefined> {
    const { rows } = await pool.query<{ payload: AdapterPayload; consumed: boolean }>(
      `SELECT payload, consumed_at IS NOT NULL AS consumed FROM oidc_payload
       WHERE kind = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
      [this.kind, value],
    );
    const row = rows[0];
    if (!row) return undefined;
    return row.consumed ? { ...row.payload, consumed: true } : row.payload;
  }

  find(id: string) {
    return this.findBy("id", id);
  }

  findByUid(uid: string) {
    return this.findBy("uid", uid);
  }

  findByUserCode(userCode: string) {
    return this.findBy("user_code", userCode);
  }

  async consume(id: string): Promise<void> {
    await pool.query("UPDATE oidc_payload SET consumed_at = now() WHERE kind = $1 AND id = $2", [this.kind, id]);
  }

  async destroy(id: string): Promise<void> {
    await pool.query("DELETE FROM oidc_payload WHERE kind = $1 AND id = $2", [this.kind, id]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await pool.query("DELETE FROM oidc_payload WHERE grant_id = $1", [grantId]);
  }
}

async function main() {
  await pool.query(schema);
  const port = Number(flags.port);
  const baseUrl = `http://localhost:${port}`;
  const clientId = "bench-peer";
  const clientSecret = randomBytes(24).toString("hex");
  const provider = new Provider(baseUrl, {
    adapter: PostgresAdapter,
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: ["https://rp.example.test/callback"],
        // As the bench sends ours: client_id and client_secret in the form.
        token_endpoint_auth_method: "client_secret_post",
      },
      {
        // Scenario (Rh): the same client_id and public key as our (h).
        client_id: flags["key-client"],
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "private_key_jwt",
        jwks: { keys: [JSON.parse(flags["key-jwk"] as string)] },
      },
    ],
    // As ours (lib/oauth/client-assertion.ts): ES256 or RS256 only, 30 s of clock tolerance. The
    // assertion's jti is recorded by its ReplayDetection model, on the adapter below, as ours is on
    // our database. Its client_credentials token is opaque, stored by the adapter, as its access
    // tokens are in (R) (a JWT needs resource indicators, which (R) does not configure either).
    enabledJWA: { clientAuthSigningAlgValues: ["ES256", "RS256"] },
    clockTolerance: 30,
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    rotateRefreshToken: true,
    ttl: { AccessToken: 86_399, RefreshToken: 365 * 86_400, Grant: 365 * 86_400, ClientCredentials: 3600 },
    features: { devInteractions: { enabled: false }, clientCredentials: { enabled: true } },
  });

  // Seed refresh tokens the way the provider issues them: a grant, then its refresh tokens.
  const client = await provider.Client.find(clientId);
  if (!client) throw new Error("The bench client is missing.");
  const count = Number(flags.tokens);
  const refreshTokens: string[] = [];
  const grant = new provider.Grant({ accountId: "bench-user", clientId });
  grant.addOIDCScope("offline_access");
  const grantId = await grant.save();
  for (let done = 0; done < count; ) {
    const batch = Math.min(200, count - done);
    const values = await Promise.all(
      Array.from({ length: batch }, () =>
        new provider.RefreshToken({
          accountId: "bench-user",
          client,
          grantId,
          scope: "offline_access",
          gty: "authorization_code",
        }).save(),
      ),
    );
    refreshTokens.push(...values);
    done += batch;
  }

  const server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  writeFileSync(flags.out as string, JSON.stringify({ baseUrl, clientId, clientSecret, refreshTokens }));
  console.log("ready");
  process.on("SIGTERM", () => {
    server.close();
    void pool.end().then(() => process.exit(0));
  });
}

main().catch((error) => {
  console.error(`[oidc-provider peer] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
