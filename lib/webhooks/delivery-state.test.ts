import { describe, expect, it } from "vitest";
import { deliveryState, isDeliveryState } from "./delivery-state";

describe("deliveryState: what the delivery log says", () => {
  const cases: [status: "pending" | "delivered" | "failed", attempts: number, state: string][] = [
    ["pending", 0, "pending"],
    ["pending", 1, "retrying"],
    ["pending", 7, "retrying"],
    ["delivered", 1, "delivered"],
    ["delivered", 3, "delivered"],
    ["failed", 12, "failed"],
  ];
  it.each(cases)("%s after %i attempts: %s", (status, attempts, state) => {
    expect(deliveryState({ status, attempts })).toBe(state);
  });
  it("knows its filter values", () => {
    expect(["delivered", "retrying", "failed", "pending"].every(isDeliveryState)).toBe(true);
    expect(isDeliveryState("all")).toBe(false);
  });
});
