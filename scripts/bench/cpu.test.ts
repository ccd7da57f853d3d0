import { type ChildProcess, spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { databaseOfTitle, servingProcesses, snapshot, usedUs } from "./cpu";

describe("the bench's CPU readings", () => {
  it("names the database of a PostgreSQL backend's or autovacuum worker's title, and none of a server-wide process's", () => {
    expect(databaseOfTitle("postgres: 15/main: postgres bench_1a2b3c4d 127.0.0.1(45678) idle")).toBe("bench_1a2b3c4d");
    expect(databaseOfTitle("postgres: app bench_peer_0f 127.0.0.1(5) SELECT")).toBe("bench_peer_0f");
    expect(databaseOfTitle("postgres: 16/main: postgres other [local] idle in transaction")).toBe("other");
    expect(databaseOfTitle("postgres: 15/main: autovacuum worker bench_1a2b3c4d")).toBe("bench_1a2b3c4d");
    for (const title of [
      "postgres: 15/main: checkpointer",
      "postgres: 15/main: background writer",
      "postgres: walwriter",
      "postgres: 15/main: logical replication launcher",
      "/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main",
    ])
      expect(databaseOfTitle(title)).toBeUndefined();
  });

  it("counts the ticks used between two snapshots; a process that appeared meanwhile counts whole", () => {
    const before = new Map([
      ["1", 100],
      ["2", 50],
    ]);
    const after = new Map([
      ["1", 130],
      ["3", 5],
    ]);
    expect(usedUs(before, after)).toBe((30 + 5) * 10_000);
  });

  describe.skipIf(process.platform !== "linux")("on Linux", () => {
    let wrapper: ChildProcess | undefined;
    afterEach(() => {
      if (wrapper?.pid) process.kill(-wrapper.pid, "SIGKILL");
    });

    it("finds the process that serves the port below a wrapper, and measures it, not the wrapper", async () => {
      // A wrapper (as tsx and scripts/start.ts are) whose child listens, then uses 200 ms of CPU for a request.
      const server = `require("node:http").createServer((q, s) => { const t = process.cpuUsage(); while (process.cpuUsage(t).user < 200000); s.end("ok"); }).listen(0, function () { console.log(this.address().port); })`;
      const launcher = `const c = require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(server)}], { stdio: "inherit" }); setInterval(() => {}, 1000);`;
      wrapper = spawn(process.execPath, ["-e", launcher], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
      const port = await new Promise<number>((resolve) => wrapper?.stdout?.once("data", (d) => resolve(Number(d))));
      const serving = servingProcesses(wrapper.pid as number, port);
      expect(serving).toHaveLength(1);
      expect(serving?.[0]).not.toBe(String(wrapper.pid));
      const wrapperBefore = snapshot([String(wrapper.pid)]);
      const before = snapshot(serving ?? []);
      await fetch(`http://127.0.0.1:${port}/`);
      expect(usedUs(before, snapshot(serving ?? []))).toBeGreaterThanOrEqual(150_000);
      expect(usedUs(wrapperBefore, snapshot([String(wrapper.pid)]))).toBeLessThan(50_000);
      // Another process tree does not serve the port.
      const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 10_000)"], { stdio: "ignore" });
      try {
        expect(servingProcesses(other.pid as number, port)).toBeUndefined();
      } finally {
        other.kill("SIGKILL");
      }
    });
  });
});
