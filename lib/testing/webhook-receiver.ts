import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A real HTTP server on 127.0.0.1 that records the webhooks it receives (tests only). */

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, byte for byte. */
  body: string;
  receivedAt: Date;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** The status code to answer with (default 200), or "hang" to never answer; may depend on the request. */
  respond: (webhook: ReceivedWebhook) => number | "hang";
  /** The response body to send with it (default "ok"). */
  answer: (webhook: ReceivedWebhook) => string | Buffer;
  /** Stops listening (connections are then refused); `start` listens on the same port again. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks"): Promise<WebhookReceiver> {
  let server: Server | undefined;
  const receiver: WebhookReceiver = {
    url: "",
    port: 0,
    received: [],
    respond: () => 200,
    answer: () => "ok",
    async stop() {
      const current = server;
      server = undefined;
      if (!current) return;
      current.closeAllConnections();
      await new Promise<void>((resolve) => current.close(() => resolve()));
    },
    async start() {
      if (server) return;
      const next = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          const webhook = {
            headers: request.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            receivedAt: new Date(),
          };
          receiver.received.push(webhook);
          const status = receiver.respond(webhook);
          if (status === "hang") return;
          response.statusCode = status;
          response.setHeader("connection", "close");
          response.end(receiver.answer(webhook));
        });
      });
      await new Promise<void>((resolve, reject) => {
        next.once("error", reject);
        next.listen(receiver.port, "127.0.0.1", () => resolve());
      });
      server = next;
      receiver.port = (next.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${receiver.port}${path}`;
    },
  };
  await receiver.start();
  return receiver;
}
