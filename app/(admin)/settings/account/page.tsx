import type { Metadata } from "next";
import Link from "next/link";
import { PasswordForm } from "@/components/account/password-form";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/panel";
import { ToggleSwitch } from "@/components/ui/toggle-switch";
import { getSignedIn, requireActor } from "@/lib/auth/session";
import { env } from "@/lib/env";
import { tokenEmailsEnabled } from "@/lib/reminders/notifications";
import { changePassword, switchTokenEmails } from "./actions";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const actor = await requireActor();
  const mustChange = (await getSignedIn())?.mustChangePassword ?? false;
  const tokenEmails = await tokenEmailsEnabled(actor.id);
  const mailOn = Boolean(env().SMTP_URL);
  return (
    <>
      <PageHeader title="Account" description={`You sign in as ${actor.email}.`} />
      {mustChange ? (
        <div className="mb-6">
          <Notice title="Choose your own password" tone="warning">
            <p>
              You signed in with a one-time password. Choose a password of your own to go on; until then the other
              screens bring you back here.
            </p>
          </Notice>
        </div>
      ) : null}
      <Panel titleId="password-title" title="Change password" className="max-w-md p-5" titleClassName="mb-4">
        <PasswordForm action={changePassword} />
        {mustChange ? null : (
          <p className="mt-4 text-xs text-slate-500">
            Changing it signs you out on every other browser and device. <Link href="/settings">Back to settings</Link>
          </p>
        )}
      </Panel>
      <Panel titleId="emails-title" title="E-mail" className="mt-6 max-w-md p-5" titleClassName="mb-4">
        <ToggleSwitch
          label="Email me about my tokens"
          checked={tokenEmails}
          action={switchTokenEmails}
          fields={{}}
          description={
            mailOn
              ? "Reminders before a private integration you manage expires, and when its token is due for rotation. They are always listed under Notifications."
              : "E-mail is not set up on this server (SMTP_URL), so reminders are only listed under Notifications."
          }
        />
      </Panel>
    </>
  );
}
