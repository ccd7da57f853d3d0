import { resolve } from "node:path";

/** Where this run's server lives; shared by the global setup and the specs. */
export const e2ePort = Number(process.env.E2E_PORT ?? 3100);
export const e2eBaseUrl = `http://localhost:${e2ePort}`;
export const e2eDir = resolve("e2e/.tmp", String(e2ePort));
export const e2eServerSecret = "e2e-server-secret-e2e-server-secret-0123456789";
export const seededOwner = { email: "owner@e2e.test", password: "e2e-owner-password" };
export const infoPath = resolve(e2eDir, "server.json");

export interface ServerInfo {
  databaseUrl: string;
  pid: number;
}
