import { afterEach, describe, expect, it } from "vitest";
import { currentMillis, currentTime } from "./clock";

const holder = globalThis as { __tokenServicePlatformDate?: DateConstructor };

describe("currentTime", () => {
  afterEach(() => {
    holder.__tokenServicePlatformDate = undefined;
  });

  it("is the clock's time as a Date, without the platform's Date kept (tests, next dev)", () => {
    const before = Date.now();
    const now = currentTime();
    expect(now).toBeInstanceOf(Date);
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    expect(now.getTime()).toBeLessThanOrEqual(Date.now());
    expect(currentMillis()).toBeGreaterThanOrEqual(now.getTime());
  });

  it("reads the Date that scripts/serve.mjs kept before Next.js wrapped the global one", () => {
    let made = 0;
    class Kept extends Date {
      constructor() {
        super();
        made++;
      }
    }
    Kept.now = () => 42;
    holder.__tokenServicePlatformDate = Kept as DateConstructor;
    const now = currentTime();
    expect(made).toBe(1);
    expect(now).toBeInstanceOf(Date);
    expect(currentMillis()).toBe(42);
  });
});
