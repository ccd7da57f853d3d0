import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { updatePlace } from "@/components/app-updates/pending-updates";
import { UpdateDecision } from "@/components/app-updates/update-decision";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/panel";
import { requireActor } from "@/lib/auth/session";
import { getPendingUpdate, type PendingUpdate } from "@/lib/oauth/app-updates";
import { Refusal } from "@/lib/refusal";
import { approveUpdateAction, declineUpdateAction } from "../../actions";

export const metadata: Metadata = { title: "Review update" };

/** `Review update`: the scopes a new version of an installed app adds and removes, with `Approve` and `Decline`. */
export default async function ReviewUpdatePage({ params }: { params: Promise<{ installationId: string }> }) {
  const actor = await requireActor();
  const { installationId } = await params;
  let update: PendingUpdate | undefined;
  try {
    update = await getPendingUpdate(actor, installationId);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    // A 404 (./not-found.tsx): a page cannot set its status, notFound() does.
    if (error.kind !== "forbidden") notFound();
    return (
      <Notice title="You can't review this update" tone="warning">
        <p>{error.message}</p>
      </Notice>
    );
  }
  if (!update) {
    return (
      <Notice title="No update to review" tone="info">
        <p>
          This installation runs the newest version it was offered. <a href="/marketplace">Back to the marketplace</a>
        </p>
      </Notice>
    );
  }
  return (
    <>
      <PageHeader title={`Review update: ${update.appName}`} description={updatePlace(update)} />
      <Panel titleId="changes-title" title="What changes" className="space-y-3 p-6" titleClassName="">
        <ScopeList title="Scopes added" scopes={update.added} />
        {update.removed.length > 0 ? <ScopeList title="Scopes removed" scopes={update.removed} /> : null}
        <p className="text-sm text-slate-600">
          Until you approve, the app keeps working with what it has. Approving gives its next tokens the new scopes;
          nothing is reinstalled.
        </p>
        <UpdateDecision
          approve={approveUpdateAction}
          decline={declineUpdateAction}
          installationId={update.installationId}
        />
      </Panel>
    </>
  );
}

/** One side of the change, headed and named by its title. */
function ScopeList({ title, scopes }: { title: string; scopes: string[] }) {
  return (
    <div>
      <h3 className="text-sm font-semibold text-slate-700">{title}</h3>
      <ul className="list-inside list-disc text-sm" aria-label={title}>
        {scopes.map((s) => (
          <li key={s}>
            <code>{s}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
