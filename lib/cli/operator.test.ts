import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import { later } from "@/lib/testing/clock";
import { announcementPath, announceServer, OperatorGate, operatorCallLimit } from "./operator";

const t0 = new Date("2026-01-01T00:00:00Z");

/** The status and headers the gate refuses `call` with, or undefined when it admits it. */
function gateRefusal(call: () => void): { status: number; headers: Record<string, string> } | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, headers: error.headers };
    throw error;
  }
}

describe("the server announcement", () => {
  it("is readable by its owner only, even when the file was there before", () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "operator-")), "pglite");
    announceServer(dataDir, { pid: process.pid, port: 3000 });
    expect(statSync(announcementPath(dataDir)).mode & 0o777).toBe(0o600);
    writeFileSync(announcementPath(dataDir), "{}", { mode: 0o644 });
    announceServer(dataDir, { pid: process.pid, port: 3000 });
    expect(statSync(announcementPath(dataDir)).mode & 0o777).toBe(0o600);
  });
});

describe("OperatorGate", () => {
  it("admits this machine only, unless remote callers are allowed", () => {
    const gate = new OperatorGate();
    for (const address of ["127.0.0.1", "::1"])
      expect(gateRefusal(() => gate.admit(address, false, t0))).toBeUndefined();
    for (const address of ["192.0.2.2", "fd00::2", "unknown"])
      expect(gateRefusal(() => gate.admit(address, false, t0))?.status).toBe(403);
    expect(gateRefusal(() => gate.admit("192.0.2.2", true, t0))).toBeUndefined();
  });

  it("limits each address's calls per minute", () => {
    const gate = new OperatorGate();
    for (let i = 0; i < operatorCallLimit.calls; i++)
      expect(gateRefusal(() => gate.admit("127.0.0.1", false, t0))).toBeUndefined();
    const refused = gateRefusal(() => gate.admit("127.0.0.1", false, later(t0, 15_000)));
    expect(refused?.status).toBe(429);
    expect(refused?.headers["Retry-After"]).toBe("45");
    expect(gateRefusal(() => gate.admit("::1", false, later(t0, 15_000)))).toBeUndefined();
    expect(gateRefusal(() => gate.admit("127.0.0.1", false, later(t0, operatorCallLimit.windowMs)))).toBeUndefined();
  });

  it("counts an IPv6 caller by its /64: every address of it shares one limit", () => {
    const gate = new OperatorGate();
    for (let i = 1; i <= operatorCallLimit.calls; i++)
      expect(gateRefusal(() => gate.admit(`2001:db8:1:2::${i.toString(16)}`, true, t0))).toBeUndefined();
    expect(gateRefusal(() => gate.admit("2001:db8:1:2:ffff::1", true, later(t0, 1)))?.status).toBe(429);
    expect(gateRefusal(() => gate.admit("2001:db8:1:3::1", true, later(t0, 1)))).toBeUndefined();
  });
});
