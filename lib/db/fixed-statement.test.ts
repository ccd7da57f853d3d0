import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { FixedStatement, withInput } from "./fixed-statement";

interface Input {
  id: string;
  at: Date;
}

const part = Prisma.sql`b = ${(input: Input) => input.at.toISOString()}::timestamp(3)`;
const template = () =>
  Prisma.sql`SELECT * FROM t WHERE a = ${(input: Input) => input.id} AND ${part} OR c = ${(input: Input) => input.id}`;

describe("a fixed statement", () => {
  it("has the text and values Prisma.sql gives for the same input", () => {
    const statement = new FixedStatement<Input>(template);
    const input = { id: "x", at: new Date("2026-01-02T03:04:05.678Z") };
    const perCall = Prisma.sql`SELECT * FROM t WHERE a = ${input.id} AND ${Prisma.sql`b = ${input.at.toISOString()}::timestamp(3)`} OR c = ${input.id}`;
    expect(statement.text).toBe(perCall.text);
    expect(statement.values(input)).toEqual(perCall.values);
    expect(statement.values({ id: "y", at: input.at })).toEqual(["y", "2026-01-02T03:04:05.678Z", "y"]);
  });

  it("builds its text once", () => {
    let built = 0;
    const statement = new FixedStatement<Input>(() => {
      built++;
      return template();
    });
    expect(built).toBe(0);
    expect(statement.text).toBe(statement.text);
    statement.values({ id: "x", at: new Date() });
    expect(built).toBe(1);
  });

  it("names its values without touching the template's own text", () => {
    const statement = new FixedStatement<Input>(
      () => Prisma.sql`SELECT '$1 costs $2', ${(input: Input) => input.id}, ${part}`,
    );
    expect(statement.text).toBe("SELECT '$1 costs $2', $1, b = $2::timestamp(3)");
    expect(statement.textNaming((n) => `p${n}`)).toBe("SELECT '$1 costs $2', p1, b = p2::timestamp(3)");
    expect(statement.textNaming((n) => `$${n}`)).toBe(statement.text);
  });

  it("refuses a template with a value that is not a Param", () => {
    const statement = new FixedStatement<Input>(() => Prisma.sql`SELECT ${"x"}`);
    expect(() => statement.text).toThrow(TypeError);
  });

  it("gives a template's part the values of one input", () => {
    const bound = withInput(part, { id: "x", at: new Date("2026-01-02T03:04:05.678Z") });
    const outer = Prisma.sql`SELECT ${1}, ${bound}`;
    expect(outer.text).toBe("SELECT $1, b = $2::timestamp(3)");
    expect(outer.values).toEqual([1, "2026-01-02T03:04:05.678Z"]);
  });
});
