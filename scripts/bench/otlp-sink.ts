import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The bench's OTLP receiver for (t): takes every POST the server's exporter sends, reads it to its
 * end and answers 200 with an empty body, keeping nothing but the count. What tracing costs the
 * server is measured, not what a collector costs.
 */
export async function startDiscardingOtlpReceiver(): Promise<{
  url: string;
  exports(): number;
  close(): Promise<void>;
}> {
  let exports = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      exports++;
      response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
