import type { Metadata } from "next";
import { forbidden, redirect } from "next/navigation";
import { Card, ErrorScreen } from "@/components/oauth/error-screen";
import { InstallForm } from "@/components/oauth/install-form";
import { installSettingLabels } from "@/lib/apps/settings";
import { requireActor } from "@/lib/auth/session";
import { installChoiceFor, listedGrant } from "@/lib/oauth/authorize/install-choice";
import { authorizeParamsFrom } from "@/lib/oauth/authorize/params";
import { validateAuthorizeRequest } from "@/lib/oauth/authorize/validate";
import { scopeCatalog } from "@/lib/scopes";
import { approveInstallAction, cancelInstallAction } from "./actions";

export const metadata: Metadata = { title: "Install app" };
export const dynamic = "force-dynamic";

/**
 * GET /oauth/chooselocation: the install (authorization) screen. A bad client_id or redirect_uri
 * is shown here and never redirected; other request errors go back to the registered URI.
 */
export default async function ChooseLocationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = authorizeParamsFrom(await searchParams);
  const check = await validateAuthorizeRequest(params);
  if (!check.ok && check.kind === "screen") return <ErrorScreen {...check} />;
  if (!check.ok) redirect(check.redirectTo);

  const actor = await requireActor();
  const { app, developerName, scopes } = check.request;
  const choice = await installChoiceFor(actor, app, scopes);
  // A real 403 (forbidden.tsx beside this page explains why).
  if (!choice.allowed) forbidden();

  const hidden = Object.fromEntries(
    Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
  // What approving grants: a re-install by someone who may not approve updates holds back new scopes.
  const granted = listedGrant(choice, scopes);
  const locations =
    choice.level === "agency"
      ? choice.locations
      : choice.locations.map((l) => ({
          id: l.id,
          name: l.name,
          note: !l.installed
            ? undefined
            : l.withheld.length && granted.withheld.length === 0
              ? `installed; keeps its approved scopes, without ${l.withheld.join(", ")}`
              : "installed",
        }));
  const everyLocation = choice.level === "agency" ? choice.locations.map((l) => l.id) : [];
  const selected =
    choice.level === "agency" && !choice.approveAllLocations
      ? (choice.installedLocationIds ?? everyLocation)
      : everyLocation;
  const reinstall = choice.level === "agency" ? Boolean(choice.installedLocationIds) : false;

  return (
    <Card>
      <p className="text-xs font-semibold tracking-wide text-slate-500 uppercase">Install app</p>
      <h1 className="mt-1 text-xl font-semibold">{app.name}</h1>
      <p className="mt-1 text-sm text-slate-600">
        by {developerName} · {installSettingLabels[app.installSetting]}
      </p>
      {app.description ? <p className="mt-3 text-sm text-slate-700">{app.description}</p> : null}
      {reinstall ? (
        <p className="mt-3 rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700 ring-1 ring-slate-200">
          {app.name} is already installed for your agency; installing again re-authorizes it.
        </p>
      ) : null}
      <section aria-labelledby="scopes-title" className="mt-6">
        <h2 id="scopes-title" className="text-sm font-medium text-slate-800">
          {app.name} asks to:
        </h2>
        <ul className="mt-2 space-y-1.5">
          {granted.scopes.map((scope) => (
            <li key={scope} className="text-sm">
              <span className="text-slate-800">{scopeCatalog[scope].description}</span>{" "}
              <code className="rounded bg-slate-100 px-1 text-xs text-slate-600">{scope}</code>
            </li>
          ))}
        </ul>
        {granted.withheld.length ? (
          <p className="mt-2 text-sm text-slate-600">
            Not granted by installing again: {granted.withheld.join(", ")}. They wait until{" "}
            {choice.level === "agency"
              ? "the agency's owner or an admin"
              : "the agency's owner or an admin, or the sub-account's admin,"}{" "}
            approves the app's update.
          </p>
        ) : null}
      </section>
      <div className="mt-6">
        <InstallForm
          params={hidden}
          level={choice.level}
          locations={locations}
          selected={selected}
          installToFutureLocations={choice.level === "agency" ? choice.installToFutureLocations : false}
          approve={approveInstallAction}
          cancel={cancelInstallAction}
        />
      </div>
    </Card>
  );
}
