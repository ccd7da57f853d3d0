/**
 * The Node.js flags of the server (scripts/start.ts) and of the bench's peer (L), which gets the
 * same so the two are compared alike: V8's young generation fixed at 16 MB a semi-space.
 *
 * V8's default grows it from a small start up to the same size, and shrinks it again when
 * allocation slows. Left so, some server processes ran their whole life at a much higher CPU per
 * request than their twins, with long scavenges and a heap that climbed between full collections
 * (`--trace-gc`; bench-results.md › Figures the code rests on). Fixed, none did. It costs no memory
 * the default does not reach under load.
 */
export const HEAP_FLAGS = ["--min-semi-space-size=16", "--max-semi-space-size=16"] as const;
