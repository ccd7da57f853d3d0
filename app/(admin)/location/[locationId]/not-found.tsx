import { BackLink, Notice } from "@/components/ui/notice";

/** A sub-account the person cannot open (another agency's, or none at all), on any of its screens: 404. */
export default function SubAccountNotFound() {
  return (
    <Notice title="Sub-account not found" tone="warning">
      <p>There is no sub-account here that you can open. Pick one from the sub-account switcher.</p>
      <BackLink href="/settings">Back to your settings</BackLink>
    </Notice>
  );
}
