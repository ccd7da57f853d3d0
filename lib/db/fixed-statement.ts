import { Prisma } from "@/lib/generated/prisma/client";

/** A value of a statement built once: read from each run's input. */
export type Param<I> = (input: I) => unknown;

/**
 * A statement whose text is built once, on first use, from a Prisma.sql template in which every
 * value is a `Param`; each run then only reads its values from its input, in the template's order
 * (Prisma.sql's $1…$n). For the refresh, the hottest statement: building its long Prisma.sql on
 * every request, and hashing that new text to find its prepared statement (./hot-statement.ts),
 * cost more than all of its values. `text` is one string, whose hash V8 keeps.
 */
export class FixedStatement<I> {
  readonly #template: () => Prisma.Sql;
  #built: { text: string; strings: readonly string[]; params: Param<I>[] } | undefined;

  constructor(template: () => Prisma.Sql) {
    this.#template = template;
  }

  #build(): { text: string; strings: readonly string[]; params: Param<I>[] } {
    if (!this.#built) {
      const sql = this.#template();
      this.#built = { text: sql.text, strings: sql.strings, params: paramsOf<I>(sql) };
    }
    return this.#built;
  }

  /**
   * The text with each value written as `name(n)` instead of `$n` (n from 1), put between the
   * template's own strings: nothing inside them is rewritten, whatever they hold.
   */
  textNaming(name: (n: number) => string): string {
    const { strings } = this.#build();
    let text = strings[0] ?? "";
    for (let n = 1; n < strings.length; n++) text += name(n) + strings[n];
    return text;
  }

  /** The text, with $1…$n: the same string every time. */
  get text(): string {
    return this.#build().text;
  }

  /** How many values a run has ($1…$n). */
  get valueCount(): number {
    return this.#build().params.length;
  }

  /** The values of one run, $1 first. */
  values(input: I): unknown[] {
    const { params } = this.#build();
    const values = new Array<unknown>(params.length);
    for (let i = 0; i < params.length; i++) values[i] = (params[i] as Param<I>)(input);
    return values;
  }
}

function paramsOf<I>(sql: Prisma.Sql): Param<I>[] {
  for (const value of sql.values) {
    if (typeof value !== "function") throw new TypeError("Every value of a fixed statement's template is a Param.");
  }
  return sql.values as Param<I>[];
}

/** A template of Params with the values of `input`: a part shared with statements built per call. */
export function withInput<I>(template: Prisma.Sql, input: I): Prisma.Sql {
  return new Prisma.Sql(
    template.strings,
    paramsOf<I>(template).map((param) => param(input)),
  );
}
