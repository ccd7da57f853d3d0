import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnvCache } from "./env";
import { guardConsole } from "./log";

describe("guardConsole", () => {
  const original = { error: console.error, warn: console.warn, level: process.env.LOG_LEVEL };
  beforeAll(() => {
    process.env.LOG_LEVEL = "info";
    resetEnvCache();
  });
  afterAll(() => {
    Object.assign(console, { error: original.error, warn: original.warn });
    process.env.LOG_LEVEL = original.level;
    resetEnvCache();
  });

  it("turns Next.js's console errors into one JSON line without the stack", () => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      guardConsole();
      console.error("⨯", new TypeError("Failed to parse body as FormData."));
      console.warn(
        "Error: The Server Reference ID did not match.\nRead more: https://nextjs.org/docs\n    at Object.get (.next/x.js:2:2682)",
      );
    } finally {
      write.mockRestore();
    }
    expect(lines).toHaveLength(2);
    const [error, warn] = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(error).toMatchObject({ level: "error", msg: "TypeError: Failed to parse body as FormData." });
    expect(warn).toMatchObject({ level: "warn", msg: "Error: The Server Reference ID did not match." });
    for (const line of lines) {
      expect(line).not.toMatch(/\bat\s/);
      expect(line.indexOf("\n")).toBe(line.length - 1);
    }
  });
});
