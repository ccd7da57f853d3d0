/**
 * The API's JSON answers (`json()`): a `Response` that holds its text and its headers as plain
 * values until someone reads them as a `Response`'s, so the direct router writes them as they are.
 */

const JSON_TYPE = "application/json; charset=utf-8";

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  const status = init.status ?? 200;
  const text = JSON.stringify(body);
  if (!init.headers)
    return new JsonResponse(text, { status }, new Map<string, string>().set("content-type", JSON_TYPE));
  const headers = { "content-type": JSON_TYPE, ...init.headers };
  const fields = plainFields(headers);
  return fields ? new JsonResponse(text, { status }, fields) : new JsonResponse(text, { status, headers });
}

/** A header name `Headers` takes as it is (an RFC 9110 token). */
const PLAIN_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A value `Headers` keeps as it is: visible ASCII with inner spaces, nothing to trim, nothing to refuse. */
const PLAIN_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

/**
 * Names seen to be plain and already lower case, as `Headers` holds them: the API's few header
 * names are checked once each rather than on every answer (at most MAX_KNOWN_NAMES are kept).
 */
const lowerPlainNames = new Set<string>();
const MAX_KNOWN_NAMES = 256;

/** `name` as `Headers` holds it, when it is a plain name; undefined otherwise. */
function plainName(name: string): string | undefined {
  if (lowerPlainNames.has(name)) return name;
  if (!PLAIN_NAME.test(name)) return undefined;
  const lower = name.toLowerCase();
  if (lower === "set-cookie") return undefined;
  if (lower === name && lowerPlainNames.size < MAX_KNOWN_NAMES) lowerPlainNames.add(name);
  return lower;
}

/** Whether `Headers` would take this header unchanged (set-cookie, which it keeps apart, aside). */
function isPlain(name: string, value: unknown): value is string {
  return typeof value === "string" && plainName(name) !== undefined && PLAIN_VALUE.test(value);
}

/**
 * A header record as `new Headers(record)` holds it (lower-case names), or undefined when `Headers`
 * would change or refuse any of it, or join a name given twice in different cases.
 */
function plainFields(record: Record<string, string>): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (!isPlain(name, value)) return undefined;
    const key = name.toLowerCase();
    if (fields.has(key)) return undefined;
    fields.set(key, value);
  }
  return fields;
}

/**
 * A `Response` whose body is JSON text held as a string: the direct router (./direct-router.ts)
 * writes `bodyText` as is. A `Response` made with a string body builds a byte stream for it, and
 * reading that back costs as much again (together more than a private-integration read's own work,
 * bench CPU profile); the stream is made here only when someone reads `body` (Next.js,
 * which serves these routes under `next dev`). Every reader of a `Response` gives the same text.
 *
 * Its headers likewise: while nobody reads `headers`, they are a plain map that apiRoute and the
 * rate limit add to (`setHeader`) and the direct router writes from (`headerEntries`); building and
 * writing a `Headers` (web IDL conversions of every name and value) cost more than the map. The
 * first read of `headers` moves them into the `Response`'s own `Headers`, which holds them from
 * then on, so every reader sees what `new Response(text, init)` would have held.
 */
export class JsonResponse extends Response {
  readonly bodyText: string;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  #used = false;
  /** Lower-case name → value, as `Headers` would hold them; undefined once `headers` was read. */
  #fields: Map<string, string> | undefined;
  /** A clone's: a bodiless Response holding the original's headers as `Response.clone` copies them (exactly, unlike `new Headers`). */
  #cloned: Response | undefined;

  /** `fields`: the headers as a plain map (every one plain), in place of `init.headers`. */
  constructor(text: string, init: ResponseInit, fields?: Map<string, string>) {
    super(null, fields ? { status: init.status, statusText: init.statusText } : init);
    this.bodyText = text;
    this.#fields = fields;
  }

  override get headers(): Headers {
    const headers = this.#cloned?.headers ?? super.headers;
    const fields = this.#fields;
    if (fields) {
      this.#fields = undefined;
      for (const [name, value] of fields) headers.append(name, value);
    }
    return headers;
  }

  /** `headers.set(name, value)`. */
  setHeader(name: string, value: string): void {
    const key = this.#fields && typeof value === "string" && PLAIN_VALUE.test(value) ? plainName(name) : undefined;
    if (key !== undefined) this.#fields?.set(key, value);
    else this.headers.set(name, value);
  }

  /** `headers.has(name)`. */
  hasHeader(name: string): boolean {
    if (this.#fields && PLAIN_NAME.test(name)) return this.#fields.has(name.toLowerCase());
    return this.headers.has(name);
  }

  /** The headers as iterating `headers` gives them (sorted by name), without building a `Headers`. */
  headerEntries(): Iterable<[string, string]> {
    const fields = this.#fields;
    if (!fields) return this.headers;
    const names = [...fields.keys()].sort();
    return names.map((name): [string, string] => [name, fields.get(name) as string]);
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.#stream ??= new Response(this.bodyText).body as ReadableStream<Uint8Array<ArrayBuffer>>;
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return this.#used || (this.#stream?.locked ?? false);
  }

  #take(): string {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.bodyText;
  }

  override async text(): Promise<string> {
    return this.#take();
  }

  override async json(): Promise<unknown> {
    return JSON.parse(this.#take());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(Buffer.from(this.#take())).buffer;
  }

  override async blob(): Promise<Blob> {
    // Response's own blob(), for the type it reads from the content type.
    return new Response(this.#take(), { headers: this.headers }).blob();
  }

  override clone(): Response {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    const init = { status: this.status, statusText: this.statusText };
    if (this.#fields) return new JsonResponse(this.bodyText, init, new Map(this.#fields));
    const copy = new JsonResponse(this.bodyText, init, new Map());
    copy.#fields = undefined;
    // `clone()` of a bodiless Response: an exact copy of the header list (a clone's, of its own).
    copy.#cloned = this.#cloned ? this.#cloned.clone() : super.clone();
    return copy;
  }
}
