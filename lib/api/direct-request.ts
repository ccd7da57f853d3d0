import type { IncomingHttpHeaders } from "node:http";

/**
 * The request the direct router (./direct-router.ts) hands a route handler in place of a web
 * `Request`: what the handlers and lib/api read (method, url, headers, the body) over node:http's
 * own request, with the body already read into a buffer. Building a `Request` (and its `Headers`,
 * AbortSignal and body stream) cost more than the private-integration read's own work (bench CPU
 * profile). Route handlers keep their `Request` type: nothing here is read that a
 * `Request` does not have, and anything else (a stream body over the form limit) still gets a real one.
 */

/** `Headers` over node:http's header object: read in place, copied only if written. */
export class DirectHeaders extends Headers {
  #raw: IncomingHttpHeaders;
  #copied = false;

  constructor(raw: IncomingHttpHeaders) {
    super();
    this.#raw = raw;
  }

  override get(name: string): string | null {
    const value = this.#own(name);
    if (value === undefined) return null;
    return normalised(Array.isArray(value) ? value.join(", ") : value);
  }

  override has(name: string): boolean {
    return this.#own(name) !== undefined;
  }

  /** The header's own value: never one inherited from Object.prototype (`__proto__`, `constructor`). */
  #own(name: string): string | string[] | undefined {
    const key = name.toLowerCase();
    return Object.hasOwn(this.#raw, key) ? this.#raw[key] : undefined;
  }

  override set(name: string, value: string): void {
    this.#writable()[name.toLowerCase()] = value;
  }

  override append(name: string, value: string): void {
    const key = name.toLowerCase();
    const existing = this.get(key);
    this.#writable()[key] = existing === null ? value : `${existing}, ${value}`;
  }

  override delete(name: string): void {
    delete this.#writable()[name.toLowerCase()];
  }

  override getSetCookie(): string[] {
    return [...(this.#raw["set-cookie"] ?? [])];
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  /** Sorted by name, as `Headers` iterates. */
  override *entries(): HeadersIterator<[string, string]> {
    for (const key of Object.keys(this.#raw).sort()) {
      const value = this.get(key);
      if (value !== null) yield [key, value];
    }
  }

  override *keys(): HeadersIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  override *values(): HeadersIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  /** node:http's object belongs to the IncomingMessage: written only on a copy. */
  #writable(): IncomingHttpHeaders {
    if (!this.#copied) {
      // Without a prototype, so a header named `__proto__` is a key like any other.
      this.#raw = Object.assign(Object.create(null) as IncomingHttpHeaders, this.#raw);
      this.#copied = true;
    }
    return this.#raw;
  }
}

/** HTTP whitespace: what `Headers` takes off both ends of a value. */
const isHttpSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/**
 * A value as `Headers` gives it back: without HTTP whitespace at either end (node:http trims each
 * field, but joins a repeated one with ", ", so an empty repeat leaves ", " at the end).
 */
function normalised(value: string): string {
  if (!value || (!isHttpSpace(value.charCodeAt(0)) && !isHttpSpace(value.charCodeAt(value.length - 1)))) return value;
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

const decoder = new TextDecoder();

/** A read-only request whose body (if any) was read before the handler runs. */
export class DirectRequest {
  readonly headers: DirectHeaders;
  #body: Buffer | undefined;
  #stream: ReadableStream<Uint8Array> | null | undefined;
  #used = false;

  constructor(
    readonly method: string,
    readonly url: string,
    headers: IncomingHttpHeaders,
    body: Buffer | undefined,
  ) {
    this.headers = new DirectHeaders(headers);
    this.#body = body?.byteLength ? body : undefined;
  }

  /** The body as a stream, made on first read (lib/api/parse.ts reads `bodyBytes` instead). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined) {
      const bytes = this.#body;
      this.#stream = bytes
        ? new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new Uint8Array(bytes));
              controller.close();
            },
          })
        : null;
    }
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The whole body, once, as `Request`'s readers give it. */
  bodyBytes(): Buffer {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#body ?? Buffer.alloc(0);
  }

  async text(): Promise<string> {
    return decoder.decode(this.bodyBytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.bodyBytes()).buffer;
  }

  /** As a handler sees it: the `Request` members it reads are all here. */
  asRequest(): Request {
    return this as unknown as Request;
  }
}
