import { BackLink, Notice } from "@/components/ui/notice";

/** What a screen without a "not found" of its own shows for notFound(): 404, with a way back. */
export default function ScreenNotFound() {
  return (
    <Notice title="Not found" tone="warning">
      <p>There is nothing here that you can open.</p>
      <BackLink href="/settings">Back to your settings</BackLink>
    </Notice>
  );
}
