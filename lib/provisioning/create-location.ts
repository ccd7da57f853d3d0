import { recordAudit } from "@/lib/accounts/audit";
import { db } from "@/lib/db/client";
import { changeCachedState } from "@/lib/db/read-cache";
import { installAppsOnNewSubAccount } from "@/lib/oauth/future-installs";
import { notFound } from "@/lib/refusal";

const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 20_000 } as const;

/**
 * Creates a sub-account: the one way every path (CLI, seed, tests, screens) makes one, because the
 * apps installed on "all sub-accounts, also those created later" join it in the same transaction,
 * with their INSTALL events (lib/oauth/future-installs.ts).
 */
export async function createLocation(options: { companyId: string; name: string; actorUserId?: string; now?: Date }) {
  const now = options.now ?? new Date();
  // The new sub-account must be visible to this instance's read cache at once (lib/db/read-cache.ts).
  return changeCachedState(() =>
    db().$transaction(async (tx) => {
      // A share lock on the agency: an agency install choosing "all sub-accounts" takes it exclusively
      // while it lists them, so this sub-account is either listed there or sees that install here.
      const company = await tx.$queryRaw<{ id: string }[]>`
        SELECT id FROM "Company" WHERE id = ${options.companyId} FOR SHARE`;
      if (company.length === 0) throw notFound(`There is no agency with id ${options.companyId}.`);
      const location = await tx.location.create({
        data: { companyId: options.companyId, name: options.name, createdAt: now },
      });
      await recordAudit(tx, {
        companyId: options.companyId,
        locationId: location.id,
        actorUserId: options.actorUserId,
        action: "location_created",
        targetId: location.id,
        details: { name: location.name },
      });
      await installAppsOnNewSubAccount(tx, location, now);
      return location;
    }, TRANSACTION_OPTIONS),
  );
}
