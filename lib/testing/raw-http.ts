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
      const bytes = Buffer.concat(chunks);
      const end = bytes.indexOf("\r\n\r\n");
      const [statusLine = "", ...lines] = bytes.subarray(0, end).toString().split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = bytes.subarray(end + 4);
      const text = (headers["transfer-encoding"] === "chunked" ? dechunk(body) : body).toString();
      done({ status: Number(statusLine.split(" ")[1]), headers, body: text });
    });
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

/** A chunked body's bytes (RFC 9112 §7.1): size in hex, CRLF, the chunk, CRLF, until size 0. */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf("\r\n", at);
    const size = eol === -1 ? 0 : Number.parseInt(body.subarray(at, eol).toString(), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
