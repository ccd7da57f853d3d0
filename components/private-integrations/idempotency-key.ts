/**
 * A new idempotency key for one press of a dialog's button (create, rotations): 128 random bits in
 * hex. `crypto.getRandomValues` works on plain-HTTP pages too, where `crypto.randomUUID` does not.
 */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
