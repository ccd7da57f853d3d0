/**
 * The API's JSON answers (`json()`): a `Response` that holds its text and its headers as plain
 * values until someone reads them as a `Response`'s, so the direct router writes them as they are.
 */

import { PLAIN_NAME, PLAIN_VALUE, plainFields, plainName } from "./plain-headers";

const JSON_TYPE = "application/json; charset=utf-8";

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  const status = init.status ?? 200;
  const text = JSON.stringify(body);
  if (!init.headers) return JsonResponse.of(text, { status }, new Map<string, string>().set("content-type", JSON_TYPE));
  const headers = { "content-type": JSON_TYPE, ...init.headers };
  const fields = plainFields(headers);
  return fields ? JsonResponse.of(text, { status }, fields) : new JsonResponse(text, { status, headers });
}

/**
 * A `Response` whose body is JSON text held as a string: the direct router (./direct-router.ts)
 * writes `bodyText` as is. A `Response` made with a string body builds a byte stream for it, and
 * reading that back costs as much again (together more than a private-integration read's own work,
 * bench CPU profile); the stream is made here only when someone reads `body` (Next.js,
 * which serves these routes under `next dev`). Every reader of a `Response` gives the same text.
 *
 * Its headers likewise: while nobody reads `headers`, they are a plain map that apiRoute and the
 * rate limit add to (`setHeader`) and the direct router writes from (`writeHeaders`); building and
 * writing a `Headers` (web IDL conversions of every name and value) cost more than the map. The
 * first read of `headers` moves them into the `Headers` of a bodiless `Response` kept beside
 * (`held`), which holds them and the status from then on, so every reader sees what
 * `new Response(text, init)` would have held.
 *
 * And so is the `Response` itself: one made on the hot path is an object of this prototype that
 * undici never built (`JsonResponse.of`), so `instanceof Response` holds, while every member of
 * `Response` is answered here (`held` is built the first time one needs it). Building undici's
 * `Response` and its `Headers` for every answer, only for the router to read the map, was a share of
 * the private-integration read's allocation (bench-results.md › Kept by hand).
 */
export class JsonResponse extends Response {
  declare readonly bodyText: string;
  declare private answerStatus: number;
  declare private answerStatusText: string;
  /** Lower-case name → value, as `Headers` would hold them; undefined once `headers` was read. */
  declare private fields: Map<string, string> | undefined;
  /**
   * A bodiless `Response` with this answer's status and headers, made when `headers` is first read
   * (or at once for headers that are not plain); a clone's is `Response.clone`'s exact copy of them.
   */
  declare private held: Response | undefined;
  declare private stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  declare private used: boolean;

  /** `new JsonResponse(text, init)`: headers given as `init.headers` (any `HeadersInit`). */
  constructor(text: string, init: ResponseInit) {
    // The Response undici builds here holds nothing: `held` holds the status and headers.
    super(null);
    JsonResponse.fill(this, text, init, undefined);
  }

  /**
   * An answer whose headers are `fields` (each plain, as ./json-response.ts's `plainFields` gives
   * them), made without building undici's Response.
   */
  static of(text: string, init: { status?: number; statusText?: string }, fields: Map<string, string>): JsonResponse {
    return JsonResponse.fill(Object.create(JsonResponse.prototype) as JsonResponse, text, init, fields);
  }

  /** Every field, in one order (one object shape), whichever way the answer was made. */
  private static fill(
    self: JsonResponse,
    text: string,
    init: ResponseInit,
    fields: Map<string, string> | undefined,
  ): JsonResponse {
    const status = init.status ?? 200;
    // A status or text Response refuses, or headers to convert: a Response holds them from the start, and refuses as it does.
    const held =
      fields && init.statusText === undefined && status >= 200 && status <= 599
        ? undefined
        : new Response(null, fields ? { status, statusText: init.statusText } : init);
    if (held && fields) for (const [name, value] of fields) held.headers.append(name, value);
    (self as { bodyText: string }).bodyText = text;
    self.answerStatus = held?.status ?? status;
    self.answerStatusText = held?.statusText ?? "";
    self.fields = held ? undefined : fields;
    self.held = held;
    self.stream = undefined;
    self.used = false;
    return self;
  }

  override get status(): number {
    return this.answerStatus;
  }

  override get statusText(): string {
    return this.answerStatusText;
  }

  override get ok(): boolean {
    return this.answerStatus >= 200 && this.answerStatus <= 299;
  }

  override get type(): ResponseType {
    return "default";
  }

  override get url(): string {
    return "";
  }

  override get redirected(): boolean {
    return false;
  }

  override get headers(): Headers {
    let held = this.held;
    if (!held) {
      held = new Response(null, { status: this.answerStatus });
      this.held = held;
    }
    const fields = this.fields;
    if (fields) {
      this.fields = undefined;
      for (const [name, value] of fields) held.headers.append(name, value);
    }
    return held.headers;
  }

  /** `headers.set(name, value)`. */
  setHeader(name: string, value: string): void {
    const key = this.fields && typeof value === "string" && PLAIN_VALUE.test(value) ? plainName(name) : undefined;
    if (key !== undefined) this.fields?.set(key, value);
    else this.headers.set(name, value);
  }

  /** `headers.has(name)`. */
  hasHeader(name: string): boolean {
    if (this.fields && PLAIN_NAME.test(name)) return this.fields.has(name.toLowerCase());
    return this.headers.has(name);
  }

  /**
   * Pushes each header onto `into` as a name and then its value, in the order iterating `headers`
   * gives them (sorted by name), without building a `Headers`; `skip` leaves out the names it
   * answers true for (those the router writes itself).
   */
  writeHeaders(into: string[], skip: (name: string) => boolean): void {
    const fields = this.fields;
    if (!fields) {
      for (const [name, value] of this.headers) if (!skip(name)) into.push(name, value);
      return;
    }
    // Sorted in a reused array (a handful of names, inserted in order): nothing allocated per answer.
    const names = sortedNames;
    names.length = 0;
    for (const name of fields.keys()) {
      let at = names.length;
      names.push(name);
      for (; at > 0 && (names[at - 1] as string) > name; at--) names[at] = names[at - 1] as string;
      names[at] = name;
    }
    for (const name of names) if (!skip(name)) into.push(name, fields.get(name) as string);
    names.length = 0;
  }

  /** The headers as iterating `headers` gives them (sorted by name), without building a `Headers`. */
  headerEntries(): [string, string][] {
    const pairs: string[] = [];
    this.writeHeaders(pairs, () => false);
    const entries: [string, string][] = [];
    for (let i = 0; i < pairs.length; i += 2) entries.push([pairs[i] as string, pairs[i + 1] as string]);
    return entries;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
    this.stream ??= new Response(this.bodyText).body as ReadableStream<Uint8Array<ArrayBuffer>>;
    return this.stream;
  }

  override get bodyUsed(): boolean {
    return this.used || (this.stream?.locked ?? false);
  }

  private take(): string {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    return this.bodyText;
  }

  override async text(): Promise<string> {
    return this.take();
  }

  override async json(): Promise<unknown> {
    return JSON.parse(this.take());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(Buffer.from(this.take())).buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(Buffer.from(this.take()));
  }

  override async blob(): Promise<Blob> {
    // Response's own blob(), for the type it reads from the content type.
    return new Response(this.take(), { headers: this.headers }).blob();
  }

  override async formData(): Promise<FormData> {
    return new Response(this.take(), { headers: this.headers }).formData();
  }

  override clone(): Response {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    const init = { status: this.answerStatus };
    const copy = JsonResponse.of(this.bodyText, init, new Map(this.fields ?? []));
    if (!this.fields) {
      // `Response.clone` of the bodiless one: an exact copy of the header list (a clone's, of its own).
      copy.fields = undefined;
      copy.held = (this.held as Response).clone();
      copy.answerStatusText = this.answerStatusText;
    }
    return copy;
  }

  /** As util.inspect shows a Response (its own inspector reads undici's state, which `of` never made). */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `JsonResponse { status: ${this.answerStatus}, body: ${this.bodyText.slice(0, 200)} }`;
  }
}

/** `writeHeaders`'s scratch array (it runs to its end synchronously, so one serves every answer). */
const sortedNames: string[] = [];
