import type { Metadata } from "next";
import { PageHeader } from "@/components/page-header";
import { AddMemberForm } from "@/components/team/add-member-form";
import { MemberActions } from "@/components/team/member-actions";
import { RoleForm } from "@/components/team/role-form";
import { NoPermission } from "@/components/ui/notice";
import { Panel, panelClass } from "@/components/ui/panel";
import { ToggleSwitch } from "@/components/ui/toggle-switch";
import { listLocations } from "@/lib/accounts/companies";
import { canChangeMemberPermissions, canManageMember, canManageTeam } from "@/lib/accounts/permissions";
import { isAgencyRole, roleLabels, roles } from "@/lib/accounts/roles";
import { listTeam } from "@/lib/accounts/users";
import { requireActor } from "@/lib/auth/session";
import { twoFactorOnFor } from "@/lib/auth/two-factor/factors";
import { requiresTwoFactor } from "@/lib/auth/two-factor-policy";
import {
  addTeamMember,
  changeRole,
  removeMember,
  resetMemberPassword,
  switchRequireTwoFactor,
  togglePermission,
} from "./actions";

export const metadata: Metadata = { title: "Team" };

export default async function TeamPage() {
  const actor = await requireActor();
  if (!canManageTeam(actor)) {
    return (
      <NoPermission to="manage the team">
        Only the agency's owners and admins can add team members or change roles and permissions.
      </NoPermission>
    );
  }
  const [team, locations, required] = await Promise.all([
    listTeam(actor.companyId),
    listLocations(actor.companyId),
    requiresTwoFactor(actor.companyId),
  ]);
  const withTwoFactor = await twoFactorOnFor(team.map((m) => m.id));
  const locationNames = new Map(locations.map((l) => [l.id, l.name]));
  const roleOptions = roles
    .filter((r) => r !== "agency_owner" || actor.role === "agency_owner")
    .map((value) => ({ value, label: roleLabels[value] }));

  return (
    <>
      <PageHeader title="Team" description="Who can sign in to your agency, their roles, and what they may manage." />
      {actor.role === "agency_owner" ? (
        <Panel titleId="policy-title" title="Sign-in policy" className="mb-6 p-5" titleClassName="mb-3">
          <ToggleSwitch
            label="Require two-factor authentication"
            checked={required}
            action={switchRequireTwoFactor}
            fields={{}}
            description="Members of the agency and its sub-accounts without a second factor must set one up before they can do anything else."
          />
        </Panel>
      ) : required ? (
        <p className="mb-6 text-sm text-slate-600">The agency requires two-factor authentication of every member.</p>
      ) : null}
      <ul className="space-y-4">
        {team.map((member) => (
          <li key={member.id}>
            <section aria-label={`${member.name} (${member.email})`} className={`${panelClass} p-5`}>
              <div className="flex flex-wrap items-start justify-between gap-4">
                <div>
                  <h2 className="font-medium">{member.name}</h2>
                  <p className="text-sm text-slate-600">{member.email}</p>
                  <p className="mt-1 text-xs text-slate-600">
                    Two-factor:{" "}
                    <span className={withTwoFactor.has(member.id) ? "font-medium text-emerald-800" : "font-medium"}>
                      {withTwoFactor.has(member.id) ? "On" : "Off"}
                    </span>
                  </p>
                  <p className="mt-1 text-xs text-slate-500">
                    {roleLabels[member.role]}
                    {member.locationIds.length
                      ? ` · ${member.locationIds.map((id) => locationNames.get(id) ?? id).join(", ")}`
                      : ""}
                  </p>
                </div>
                {/* Only where the viewer may change it: never their own row, nor an owner's for an admin. */}
                {canManageMember(actor, member) ? (
                  <div className="flex flex-col items-end gap-3">
                    <RoleForm
                      action={changeRole}
                      userId={member.id}
                      role={member.role}
                      roles={roleOptions}
                      label={`Role of ${member.name}`}
                      locations={locations.map(({ id, name }) => ({ id, name }))}
                      locationIds={member.locationIds}
                    />
                    <MemberActions
                      member={{ id: member.id, name: member.name, email: member.email }}
                      remove={removeMember}
                      resetPassword={resetMemberPassword}
                    />
                  </div>
                ) : null}
              </div>
              <div className="mt-4 border-t border-slate-100 pt-4">
                <h3 className="mb-3 text-sm font-semibold text-slate-700">Roles and Permissions</h3>
                {canChangeMemberPermissions(actor, member) ? null : (
                  <p className="-mt-2 mb-3 text-xs text-slate-500">
                    Only an agency owner can change an owner's permissions.
                  </p>
                )}
                <div className="grid gap-4 sm:grid-cols-2">
                  <ToggleSwitch
                    label="Agency private integrations"
                    description={
                      isAgencyRole(member.role)
                        ? "View and manage the agency's private integrations."
                        : "Only agency team members can have this."
                    }
                    checked={member.agencyPrivateIntegrations}
                    disabled={!isAgencyRole(member.role) || !canChangeMemberPermissions(actor, member)}
                    action={togglePermission}
                    fields={{ userId: member.id, permission: "agencyPrivateIntegrations" }}
                  />
                  <ToggleSwitch
                    label="Sub-account private integrations"
                    description="View and manage private integrations of the sub-accounts they can reach."
                    checked={member.locationPrivateIntegrations}
                    disabled={!canChangeMemberPermissions(actor, member)}
                    action={togglePermission}
                    fields={{ userId: member.id, permission: "locationPrivateIntegrations" }}
                  />
                </div>
              </div>
            </section>
          </li>
        ))}
      </ul>
      <Panel titleId="add-member" title="Add a team member" className="mt-8 p-5" titleClassName="mb-4">
        <AddMemberForm
          action={addTeamMember}
          roles={roleOptions}
          locations={locations.map(({ id, name }) => ({ id, name }))}
        />
      </Panel>
    </>
  );
}
