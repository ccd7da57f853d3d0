// next-auth builds its callback URLs from NEXTAUTH_URL; derive it from APP_URL (SPEC.md, Set-up).
process.env.NEXTAUTH_URL ??= process.env.APP_URL || `http://localhost:${process.env.PORT || 3000}`;

/** @type {import('next').NextConfig} */
const nextConfig = {
  // SPEC.md: paths answer with and without a trailing slash, and a POST is never redirected.
  skipTrailingSlashRedirect: true,
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "@prisma/schema-engine-wasm",
    "pg",
    // One copy per process, not one per chunk (lib/metrics keeps its registry on globalThis too).
    "prom-client",
    // Loaded from node_modules only when an OTLP endpoint is set (lib/telemetry/start.ts), never bundled:
    // the API is the one Next.js's own tracer requires, so both see the same tracer provider.
    "@opentelemetry/api",
    "@opentelemetry/sdk-node",
  ],
  // Lets e2e runs and benchmarks build beside a developer's own build.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // SPEC.md: nothing built for benchmarks is routed in production. `route.bench.ts` files are
  // routes only in the build `npm run bench` makes for itself (BENCH_BUILD=1, in .next-bench).
  pageExtensions: process.env.BENCH_BUILD === "1" ? ["bench.ts", "tsx", "ts", "jsx", "js"] : ["tsx", "ts", "jsx", "js"],
  poweredByHeader: false,
  experimental: {
    // NEXT_SERVER_MINIFY=0: a build whose CPU profiles name our functions (issue 28's profiling).
    serverMinification: process.env.NEXT_SERVER_MINIFY !== "0",
    // forbidden() answers the install screen's refusals with a real 403.
    authInterrupts: true,
    // Server actions are taken from pages of the public origin (APP_URL) as well as from the Host
    // the request names, so a proxy that rewrites Host does not break them. A client-sent
    // X-Forwarded-Host is dropped at the edge without trusted proxies (lib/api/direct-router.ts).
    serverActions: { allowedOrigins: [new URL(process.env.NEXTAUTH_URL).host] },
  },
  reactStrictMode: true,
  // The build type-checks, except in .ci/run, whose two `npm test` runs type-check (`tsc --noEmit`,
  // Next's route types included) right after it: one check fewer on the way to the tests.
  typescript: { ignoreBuildErrors: process.env.TYPE_CHECK_IN_NPM_TEST === "1" },
  // No page may be framed (clickjacking: the install screen's Allow button above all).
  // X-Frame-Options for browsers that predate frame-ancestors.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};

export default nextConfig;
