import { BackLink, Notice } from "@/components/ui/notice";

/** An installation that is not installed here, or not at all: 404. */
export default function UpdateNotFound() {
  return (
    <Notice title="App not found" tone="warning">
      <p>This app is not installed here.</p>
      <BackLink href="/marketplace">Back to the marketplace</BackLink>
    </Notice>
  );
}
