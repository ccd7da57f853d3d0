import { describe, expect, it } from "vitest";
import { dueMilestones } from "./milestones";

const moment = (iso: string) => new Date(iso);
// Expires 2031-05-20 (the last day it works): tokens stop at 2031-05-21T00:00Z.
const expiresAt = moment("2031-05-21T00:00:00.000Z");
const fresh = { currentTokenId: "tok1", tokenIssuedAt: moment("2031-05-01T12:00:00.000Z") };

describe("expiry milestones, in whole UTC days from today to the Expires date", () => {
  it.each([
    ["2031-05-05T23:59:59Z", undefined], // 15 days left
    ["2031-05-06T00:00:00Z", "expires-14d:2031-05-20"], // 14 days left
    ["2031-05-12T10:00:00Z", "expires-14d:2031-05-20"], // 8 days left
    ["2031-05-13T00:00:00Z", "expires-7d:2031-05-20"], // 7
    ["2031-05-18T23:59:59Z", "expires-7d:2031-05-20"], // 2
    ["2031-05-19T00:00:00Z", "expires-1d:2031-05-20"], // 1
    ["2031-05-20T23:59:59Z", "expires-1d:2031-05-20"], // 0: the last day; the nearest passed milestone
  ])("at %s: %s", (now, milestone) => {
    const due = dueMilestones({ ...fresh, expiresAt }, moment(now)).filter((m) => m.kind === "expiry");
    expect(due.map((m) => m.milestone)).toEqual(milestone ? [milestone] : []);
  });

  it("several passed milestones (downtime, or an Expires date set close) give one, the nearest", () => {
    expect(dueMilestones({ ...fresh, expiresAt }, moment("2031-05-19T08:00:00Z"))).toEqual([
      { kind: "expiry", milestone: "expires-1d:2031-05-20", dueDate: "2031-05-20", daysLeft: 1 },
    ]);
  });

  it("none once expired, nor for a rotation due then", () => {
    expect(dueMilestones({ ...fresh, expiresAt }, expiresAt)).toEqual([]);
    expect(
      dueMilestones(
        { expiresAt, currentTokenId: "t", tokenIssuedAt: moment("2031-01-01T00:00:00Z") },
        moment("2031-06-01T00:00:00Z"),
      ),
    ).toEqual([]);
  });

  it("none without an Expires date", () => {
    expect(dueMilestones({ ...fresh, expiresAt: null }, moment("2031-05-19T00:00:00Z"))).toEqual([]);
  });

  it("a later Expires date arms them again (another key)", () => {
    const later = moment("2031-06-21T00:00:00.000Z");
    expect(dueMilestones({ ...fresh, expiresAt: later }, moment("2031-06-19T00:00:00Z"))[0]?.milestone).toBe(
      "expires-1d:2031-06-20",
    );
  });
});

describe("rotation due, 90 days after the current token was issued", () => {
  const issued = moment("2031-01-01T12:00:00.000Z");
  it.each([
    ["2031-04-01T11:59:59.999Z", false],
    ["2031-04-01T12:00:00.000Z", true],
    ["2031-09-01T00:00:00.000Z", true],
  ])("at %s: %s", (now, due) => {
    const milestones = dueMilestones({ expiresAt: null, currentTokenId: "tok9", tokenIssuedAt: issued }, moment(now));
    expect(milestones).toEqual(
      due ? [{ kind: "rotation_due", milestone: "rotation-90d:tok9", dueDate: "2031-04-01" }] : [],
    );
  });

  it("both kinds can be due at once", () => {
    const due = dueMilestones(
      { expiresAt, currentTokenId: "t", tokenIssuedAt: moment("2031-01-01T00:00:00Z") },
      moment("2031-05-15T00:00:00Z"),
    );
    expect(due.map((m) => m.kind)).toEqual(["expiry", "rotation_due"]);
  });
});
