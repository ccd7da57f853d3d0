import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A software authenticator for tests: an ES256 (P-256) key per credential, attestation "none",
 * answering registration and authentication options as a browser would (clientDataJSON,
 * authenticatorData, signature), so the server's WebAuthn checks run for real without a browser.
 */
const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

const flags = { userPresent: 0x01, userVerified: 0x04, attestedData: 0x40 };

export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  /** The user handle given at registration (base64url). */
  userHandle: string;
  counter: number;
}

export interface AnswerOptions {
  /** The origin the browser reports (default: the one the authenticator was made for). */
  origin?: string;
  rpId?: string;
  /** Whether the user was verified (PIN, biometrics); default true. */
  userVerified?: boolean;
  /** The signature counter to report (default: one more than the last). */
  counter?: number;
}

function authenticatorData(rpId: string, userVerified: boolean, counter: number, attested?: Buffer): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const flagByte = flags.userPresent | (userVerified ? flags.userVerified : 0) | (attested ? flags.attestedData : 0);
  return Buffer.concat([sha256(rpId), Buffer.from([flagByte]), count, ...(attested ? [attested] : [])]);
}

function clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

export function softAuthenticator(defaults: { origin: string; rpId: string }) {
  const credentials: SoftCredential[] = [];

  /** `navigator.credentials.create`: a new credential for the options' user. */
  function register(
    options: PublicKeyCredentialCreationOptionsJSON,
    answer: AnswerOptions = {},
  ): { response: RegistrationResponseJSON; credential: SoftCredential } {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x ?? "", "base64url")],
      [-3, Buffer.from(jwk.y ?? "", "base64url")],
    ]);
    const id = randomBytes(16);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, Buffer.from(isoCBOR.encode(coseKey))]);
    const counter = answer.counter ?? 0;
    const authData = authenticatorData(answer.rpId ?? defaults.rpId, answer.userVerified ?? true, counter, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", new Uint8Array(authData)],
      ]) as Parameters<typeof isoCBOR.encode>[0],
    );
    const credential: SoftCredential = {
      id: b64(id),
      privateKey,
      userHandle: options.user.id,
      counter,
    };
    credentials.push(credential);
    return {
      credential,
      response: {
        id: credential.id,
        rawId: credential.id,
        type: "public-key",
        response: {
          clientDataJSON: b64(clientData("webauthn.create", options.challenge, answer.origin ?? defaults.origin)),
          attestationObject: b64(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
      },
    };
  }

  /** `navigator.credentials.get` with `credential` (default: the first one the options allow, or the first made). */
  function authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    credential?: SoftCredential,
    answer: AnswerOptions = {},
  ): AuthenticationResponseJSON {
    const allowed = options.allowCredentials?.map((c) => c.id) ?? [];
    const chosen = credential ?? (allowed.length ? credentials.find((c) => allowed.includes(c.id)) : credentials[0]);
    if (!chosen) throw new Error("the soft authenticator has no credential these options allow");
    chosen.counter = answer.counter ?? chosen.counter + 1;
    const authData = authenticatorData(answer.rpId ?? defaults.rpId, answer.userVerified ?? true, chosen.counter);
    const data = clientData("webauthn.get", options.challenge, answer.origin ?? defaults.origin);
    const signature = sign("sha256", Buffer.concat([authData, sha256(data)]), chosen.privateKey);
    return {
      id: chosen.id,
      rawId: chosen.id,
      type: "public-key",
      response: {
        clientDataJSON: b64(data),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: chosen.userHandle,
      },
      clientExtensionResults: {},
    };
  }

  return { register, authenticate, credentials };
}
