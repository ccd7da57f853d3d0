import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

// N=2^15, r=8, p=1: OWASP's scrypt floor (its time: bench-results.md › Figures the code rests on).
// Parameters travel with the hash, so a hash made with other parameters still verifies. Unit tests (NODE_ENV=test, set by vitest) use a
// cheap N: they create hundreds of users and test the rules around passwords, not scrypt.
const params = { N: process.env.NODE_ENV === "test" ? 1024 : 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32, params);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, key] = stored.split("$");
  if (kind !== "scrypt" || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64url"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: params.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** Checked against something when the account does not exist, so timing does not tell. */
export const dummyPasswordHash = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
