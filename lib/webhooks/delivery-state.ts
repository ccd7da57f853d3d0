/**
 * What the delivery log says of an event (SPEC.md › Every screen): `Delivered`, `Retrying` (tried,
 * refused or unreachable, another attempt scheduled), `Failed` (given up) or `Pending` (not tried
 * yet). The stored status has no `retrying`: a pending event with attempts is retrying.
 */
export type DeliveryState = "delivered" | "retrying" | "failed" | "pending";

export const deliveryStates: readonly DeliveryState[] = ["delivered", "retrying", "failed", "pending"];

export const deliveryStateLabels: Record<DeliveryState, string> = {
  delivered: "Delivered",
  retrying: "Retrying",
  failed: "Failed",
  pending: "Pending",
};

export function deliveryState(event: { status: "pending" | "delivered" | "failed"; attempts: number }): DeliveryState {
  if (event.status !== "pending") return event.status;
  return event.attempts > 0 ? "retrying" : "pending";
}

export function isDeliveryState(value: unknown): value is DeliveryState {
  return deliveryStates.includes(value as DeliveryState);
}
