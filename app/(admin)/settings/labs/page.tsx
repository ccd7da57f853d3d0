import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { NoPermission } from "@/components/ui/notice";
import { panelClass } from "@/components/ui/panel";
import { ToggleSwitch } from "@/components/ui/toggle-switch";
import { isLabsFeatureEnabled, labsFeatures } from "@/lib/accounts/labs";
import { canManageLabs } from "@/lib/accounts/permissions";
import { requireActor } from "@/lib/auth/session";
import { toggleLabsFeature } from "./actions";

export const metadata: Metadata = { title: "Labs" };

export default async function LabsPage() {
  const actor = await requireActor();
  if (!canManageLabs(actor)) {
    return (
      <NoPermission to="change Labs">
        Only the agency's owners and admins can turn Labs features on or off. Ask one of them.
      </NoPermission>
    );
  }
  const enabled = await isLabsFeatureEnabled(actor.companyId, "private_integrations");
  const feature = labsFeatures.private_integrations;
  return (
    <>
      <PageHeader
        title="Labs"
        description="Try new features before everyone else. Each is off until you turn it on for your agency."
      />
      <ul className={`${panelClass} divide-y divide-slate-200`}>
        <li className="p-5">
          <ToggleSwitch
            label={feature.name}
            description={feature.description}
            checked={enabled}
            action={toggleLabsFeature}
            fields={{ feature: "private_integrations" }}
          />
        </li>
      </ul>
    </>
  );
}
