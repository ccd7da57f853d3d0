import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "scripts/**/*.test.ts", "app/**/*.test.ts"],
    globalSetup: ["lib/testing/global-setup.ts"],
    setupFiles: ["lib/testing/setup.ts"],
    pool: "forks",
    // Each test file's process is short-lived: V8's optimizing compilers (TurboFan for WebAssembly,
    // PGlite's and Prisma's query compiler, and for JavaScript) spent more CPU compiling than their
    // code saved before the process ended. Off, Vitest took about half the CPU on PGlite and two
    // fifths less on PostgreSQL (bench-results.md › How long the suites take).
    execArgv: ["--liftoff-only", "--no-opt"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
