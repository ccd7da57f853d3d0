import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { e2ePort } from "./env";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request over node:http, whose `localAddress` picks the client's end of the connection. */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = httpRequest(
      url,
      { method: options.method ?? "GET", headers: options.headers, localAddress: options.localAddress },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          done({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString() }),
        );
        response.on("error", fail);
      },
    );
    request.on("error", fail);
    request.end(options.body);
  });
}

/**
 * A loopback address other than 127.0.0.1, new on each call. Linux answers on all of 127.0.0.0/8,
 * so a request whose `localAddress` is this one comes from another client as far as the server can tell.
 */
export function randomLoopback(): string {
  const octet = () => randomBytes(1)[0]!;
  return `127.${1 + (octet() % 254)}.${octet()}.${1 + (octet() % 254)}`;
}

/**
 * Reports `token` as leaked through `POST /credentials/revoke` (from a loopback address of its own,
 * so the endpoint's rate limit is not shared with other tests); the answer's status.
 */
export async function reportLeaked(token: string): Promise<number> {
  const answer = await send(`http://127.0.0.1:${e2ePort}/credentials/revoke`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ credentials: [token] }),
    localAddress: randomLoopback(),
  });
  return answer.status;
}
