import { createHmac } from "node:crypto";
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { HttpError } from "@/lib/api/http-error";
import { addressBucket, isLoopback } from "@/lib/client-address";
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

/** Readable by the server's own user only (chmod too: `mode` applies to a new file only). */
export function announceServer(dataDir: string, announcement: ServerAnnouncement): void {
  const path = announcementPath(dataDir);
  writeFileSync(path, JSON.stringify(announcement), { mode: 0o600 });
  chmodSync(path, 0o600);
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

/** The key the CLI presents; `secret` for a caller without the server's environment (the e2e suite). */
export function operatorKey(secret?: string): string {
  return createHmac("sha256", derivedKey("operator", secret)).update("operator-cli").digest("base64url");
}

export function isOperatorKey(presented: string): boolean {
  return safeEqual(presented, operatorKey());
}

export const operatorCallLimit = { calls: 60, windowMs: 60_000 } as const;

/**
 * Who may call POST /api/operator: by default only this machine (the CLI calls 127.0.0.1), since
 * the one key it takes creates owners in any agency; OPERATOR_ALLOW_REMOTE=1 opens it. Each client
 * address (an IPv6 one by its /64) gets `operatorCallLimit.calls` calls a minute, counted in this
 * process (the embedded database the endpoint exists for belongs to one process), key or no key.
 */
export class OperatorGate {
  private readonly windows = new Map<string, { startedAt: number; calls: number }>();

  /** Throws the 403 or 429 for a call from `address` (lib/client-address.ts) at `now`. */
  admit(address: string, allowRemote: boolean, now: Date): void {
    if (!allowRemote && !isLoopback(address)) {
      throw new HttpError(
        "forbidden",
        "This endpoint answers the operator CLI on the server's own machine only (OPERATOR_ALLOW_REMOTE=1 opens it).",
      );
    }
    // Limited per caller: an IPv6 address by its /64, whose every address one client can use.
    const caller = addressBucket(address);
    if (!this.withinLimit(caller, now)) {
      const retryAfter = this.retryAfterSeconds(caller, now);
      throw new HttpError("rate_limited", `Too many operator calls. Try again in ${retryAfter} seconds.`, {
        headers: { "Retry-After": String(retryAfter) },
      });
    }
  }

  /** Counts the call; false once the caller is over its limit for the minute. */
  private withinLimit(address: string, now: Date): boolean {
    const t = now.getTime();
    if (this.windows.size > 1000) {
      for (const [key, window] of this.windows)
        if (t - window.startedAt >= operatorCallLimit.windowMs) this.windows.delete(key);
    }
    const window = this.windows.get(address);
    if (!window || t - window.startedAt >= operatorCallLimit.windowMs) {
      this.windows.set(address, { startedAt: t, calls: 1 });
      return true;
    }
    window.calls++;
    return window.calls <= operatorCallLimit.calls;
  }

  /** When the address's current minute is over. */
  private retryAfterSeconds(address: string, now: Date): number {
    const window = this.windows.get(address);
    if (!window) return 0;
    return Math.max(1, Math.ceil((window.startedAt + operatorCallLimit.windowMs - now.getTime()) / 1000));
  }
}

export const operatorGate = new OperatorGate();
