import { createHmac } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { derivedKey, safeEqual } from "@/lib/crypto/secrets";

/**
 * PGlite lets one process open a data directory. While the server runs on it, the CLI hands its
 * command to the server (POST /api/operator) instead of opening the database itself. The server
 * announces itself in a file beside the data directory; the call is authorised by a key derived
 * from SERVER_SECRET, which only the operator's machine has.
 */
export interface ServerAnnouncement {
  pid: number;
  port: number;
}

export const announcementPath = (dataDir: string) => `${dataDir}.server.json`;

export function announceServer(dataDir: string, announcement: ServerAnnouncement): void {
  writeFileSync(announcementPath(dataDir), JSON.stringify(announcement));
}

export function withdrawAnnouncement(dataDir: string): void {
  rmSync(announcementPath(dataDir), { force: true });
}

/** The running server holding this data directory, if any. */
export function runningServer(dataDir: string): ServerAnnouncement | undefined {
  const path = announcementPath(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    const found = JSON.parse(readFileSync(path, "utf8")) as ServerAnnouncement;
    process.kill(found.pid, 0); // throws when no such process
    return found;
  } catch {
    return undefined;
  }
}

export function operatorKey(): string {
  return createHmac("sha256", derivedKey("operator")).update("operator-cli").digest("base64url");
}

export function isOperatorKey(presented: string): boolean {
  return safeEqual(presented, operatorKey());
}
