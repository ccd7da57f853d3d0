/**
 * The Node.js flags of the server (scripts/start.ts) and of the bench's peer (L), which gets the
 * same so the two are compared alike: V8's young generation fixed at 16 MB a semi-space.
 *
 * V8's default grows it from 1 MB up to the same 16 MB, and shrinks it again when allocation slows.
 * Left so, about one server process in three ran its whole life at 1.5–2× the CPU per request of
 * its twins: its scavenges took 5–7 ms instead of about 1, and its heap climbed to 270 MB between
 * full collections instead of staying at 85 (`--trace-gc`, issue 28's bench, bench-results.md).
 * Fixed, none of 16 did. It costs no memory the default does not reach under load.
 */
export const HEAP_FLAGS = ["--min-semi-space-size=16", "--max-semi-space-size=16"] as const;
