import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { e2eDir, seededOwner } from "./env";
import { type Finding, findSecrets, readTree, rememberedSecrets } from "./secrets";

/**
 * After the suite, with the server stopped: the whole database as text (every row of every table),
 * the raw files of an embedded database, and the server log must contain none of the secrets the
 * suite saw or typed. Throws (failing the run) when one is found; writes the numbers to `reportFile`.
 */
export async function checkSecretsAtRest(
  databaseUrl: string,
  logFile: string,
  reportFile = resolve(e2eDir, "secrets-at-rest.json"),
): Promise<void> {
  const secrets = rememberedSecrets();
  const { text: dump, rows, tables } = await dumpDatabase(databaseUrl);
  // The dump must be real: the seeded owner's e-mail is stored in plain text.
  if (!dump.includes(seededOwner.email)) throw new Error("Secrets at rest: the database dump looks empty.");

  const findings: Finding[] = [...findSecrets(secrets, dump, "database dump")];
  const files = databaseUrl.startsWith("file:") ? readTree(databaseUrl.slice("file:".length)) : [];
  for (const file of files) findings.push(...findSecrets(secrets, file.text, `data file ${file.path}`));
  const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
  findings.push(...findSecrets(secrets, log, "server log"));

  const byKind: Record<string, number> = {};
  for (const s of secrets) {
    const kind = s.label.split(": ").pop() ?? s.label;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  const report = {
    secretsChecked: secrets.length,
    byKind,
    tables,
    rows,
    dumpBytes: dump.length,
    dataFileBytes: files.reduce((n, f) => n + f.text.length, 0),
    logBytes: log.length,
    found: findings.map((f) => ({ label: f.secret.label, where: f.where, tail: f.needle.slice(-4) })),
  };
  writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `Secrets at rest: ${secrets.length} secrets seen or typed by the suite, searched in ${rows} rows of ${tables} tables (${report.dumpBytes} bytes)` +
      `${files.length ? `, ${files.length} data files (${report.dataFileBytes} bytes)` : ""} and the server log (${report.logBytes} bytes): ` +
      `${findings.length ? `${findings.length} FOUND` : "none found"}.`,
  );
  if (secrets.length === 0)
    throw new Error("Secrets at rest: the suite recorded no secret at all; the recorder is broken.");
  if (findings.length) {
    const lines = findings.map((f) => `  ${f.secret.label} (…${f.needle.slice(-4)}) in ${f.where}`);
    throw new Error(`Secrets at rest: secrets found where they must never be:\n${lines.join("\n")}`);
  }
}

/** Every row of every table of the public schema, as PostgreSQL's text form of the row. */
async function dumpDatabase(databaseUrl: string): Promise<{ text: string; rows: number; tables: number }> {
  type Query = (sql: string) => Promise<{ rows: Record<string, unknown>[] }>;
  let query: Query;
  let close: () => Promise<void>;
  if (databaseUrl.startsWith("file:")) {
    const { PGlite } = await import("@electric-sql/pglite");
    const pglite = new PGlite(databaseUrl.slice("file:".length));
    query = (sql) => pglite.query(sql) as Promise<{ rows: Record<string, unknown>[] }>;
    close = () => pglite.close();
  } else {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    query = (sql) => client.query(sql);
    close = () => client.end();
  }
  try {
    const { rows: tables } = await query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    );
    const parts: string[] = [];
    let rows = 0;
    for (const { table_name } of tables) {
      const name = String(table_name).replace(/"/g, '""');
      const result = await query(`SELECT t::text AS row FROM "${name}" t`);
      rows += result.rows.length;
      for (const r of result.rows) parts.push(`${name}: ${String(r.row)}`);
    }
    const text = parts.join("\n");
    // bytea columns print as hex (\x…): search their bytes too.
    const bytes = [...text.matchAll(/\\x([0-9a-f]{16,})/g)].map((m) => Buffer.from(m[1]!, "hex").toString("latin1"));
    return { text: [text, ...bytes].join("\n"), rows, tables: tables.length };
  } finally {
    await close();
  }
}
