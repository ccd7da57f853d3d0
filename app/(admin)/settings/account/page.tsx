import type { Metadata } from "next";
import Link from "next/link";
import { PasswordForm } from "@/components/account/password-form";
import { SessionsList } from "@/components/account/sessions-list";
import { TwoFactorPanel } from "@/components/account/two-factor-panel";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { Panel } from "@/components/ui/panel";
import { ToggleSwitch } from "@/components/ui/toggle-switch";
import { getSignedIn, requireActor } from "@/lib/auth/session";
import { listSessions } from "@/lib/auth/sessions";
import { secondFactorsOf } from "@/lib/auth/two-factor/factors";
import { describeUserAgent } from "@/lib/auth/user-agent";
import { appUrl, env } from "@/lib/env";
import { tokenEmailsEnabled } from "@/lib/reminders/notifications";
import {
  addPasskeyAction,
  beginTotpSetupAction,
  changePassword,
  confirmTotpSetupAction,
  forgetShownAnswerAction,
  passkeyRegistrationOptionsAction,
  regenerateRecoveryCodesAction,
  removePasskeyAction,
  removeTotpAction,
  signOutSessionAction,
  switchTokenEmails,
} from "./actions";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const actor = await requireActor();
  const signedIn = await getSignedIn();
  const mustChange = signedIn?.mustChangePassword ?? false;
  const mustSetUpTwoFactor = signedIn?.mustSetUpTwoFactor ?? false;
  const now = new Date();
  const [tokenEmails, factors, sessions] = await Promise.all([
    tokenEmailsEnabled(actor.id),
    secondFactorsOf(actor.id),
    listSessions(actor.id, signedIn?.session.id ?? "", now),
  ]);
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
      {mustSetUpTwoFactor ? (
        <div className="mb-6">
          <Notice title="Set up two-factor authentication" tone="warning">
            <p>
              Your agency requires two-factor authentication. Set up an authenticator app or add a passkey below to go
              on; until then the other screens bring you back here.
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
      <Panel
        titleId="two-factor-title"
        title="Two-factor authentication"
        className="mt-6 max-w-2xl p-5"
        titleClassName="mb-4"
      >
        <TwoFactorPanel
          totp={factors.totp}
          on={factors.on}
          recoveryCodesLeft={factors.recoveryCodesLeft}
          passkeys={factors.passkeys.map((p) => ({
            id: p.id,
            name: p.name,
            createdAt: p.createdAt.toISOString(),
            lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
          }))}
          renderedAt={now.toISOString()}
          appOrigin={new URL(appUrl()).origin}
          actions={{
            beginTotp: beginTotpSetupAction,
            confirmTotp: confirmTotpSetupAction,
            removeTotp: removeTotpAction,
            regenerateCodes: regenerateRecoveryCodesAction,
            forgetShown: forgetShownAnswerAction,
            passkeys: {
              registrationOptions: passkeyRegistrationOptionsAction,
              add: addPasskeyAction,
              remove: removePasskeyAction,
            },
          }}
        />
      </Panel>
      <Panel
        titleId="sessions-title"
        title="Where you're signed in"
        className="mt-6 max-w-2xl p-5"
        titleClassName="mb-2"
      >
        <SessionsList
          renderedAt={now.toISOString()}
          signOut={signOutSessionAction}
          sessions={sessions.map((s) => ({
            id: s.id,
            ...describeUserAgent(s.userAgent),
            address: s.address,
            signedInAt: s.signedInAt.toISOString(),
            lastActiveAt: s.lastActiveAt.toISOString(),
            current: s.current,
          }))}
        />
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
              : "E-mail is not set up on this server, so reminders are only listed under Notifications."
          }
        />
      </Panel>
    </>
  );
}
