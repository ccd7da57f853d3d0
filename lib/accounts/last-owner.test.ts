import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { makeAgency, makeUser } from "@/lib/testing/fixtures";
import { updateTeamMember } from "./team";

describe("the last owner", () => {
  it("survives two owners demoting each other at the same moment", async () => {
    for (let round = 0; round < 3; round++) {
      const { company, owner: first } = await makeAgency({ locations: 0 });
      const second = await makeUser(company.id, "agency_owner");
      const outcomes = await Promise.allSettled([
        updateTeamMember(first, { userId: second.id, role: "agency_admin" }),
        updateTeamMember(second, { userId: first.id, role: "agency_admin" }),
      ]);
      expect(await db().user.count({ where: { companyId: company.id, role: "agency_owner" } })).toBe(1);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    }
  });
});
