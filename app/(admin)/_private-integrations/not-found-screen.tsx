import { PageHeader } from "@/components/page-header";
import { BackLink, Notice } from "@/components/ui/notice";

/**
 * The Private Integrations screen of a sub-account (or agency) the person cannot open: each
 * route's not-found.tsx renders it, so it answers 404 with the screen's own heading.
 */
export function PrivateIntegrationsNotFound({ level }: { level: "agency" | "location" }) {
  return (
    <>
      <PageHeader title="Private Integrations" />
      <Notice title={level === "location" ? "Sub-account not found" : "Agency not found"} tone="warning">
        <p>There is nothing here that you can open. Pick a sub-account from the sub-account switcher.</p>
        <BackLink href="/settings">Back to your settings</BackLink>
      </Notice>
    </>
  );
}
