import { BackLink, Notice } from "@/components/ui/notice";

/** An app id that is not one of the agency's (or none at all), for the app's page and its webhooks: 404. */
export default function AppNotFound() {
  return (
    <Notice title="App not found" tone="warning">
      <p>There is no such app in your agency that you can open.</p>
      <BackLink href="/developer/apps">Back to your apps</BackLink>
    </Notice>
  );
}
