import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written byte for byte over TCP (fetch cannot send TRACE, an absolute-form request
 * line, or headers without their body); the answer is read until the server closes the connection.
 */
export function rawRequest(port: number, head: string, body = "", timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((done, fail) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      fail(new Error(`no answer closed the connection to: ${head.split("\r\n")[0]}`));
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => {}); // a reset after the answer: the answer is what counts
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString();
      const end = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      done({ status: Number(statusLine.split(" ")[1]), headers, body: text.slice(end + 4) });
    });
    socket.write(`${head}\r\n\r\n${body}`);
  });
}
