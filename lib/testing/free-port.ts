import { createServer } from "node:net";

/** A loopback port nothing listens on now, for a server the test starts (PgBouncer, a standby). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", done);
  });
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === "string") throw new Error("no free port");
  return address.port;
}
