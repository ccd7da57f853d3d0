import type { Metadata } from "next";
import Link from "next/link";
import { PasswordForm } from "@/components/account/password-form";
import { PageHeader } from "@/components/page-header";
import { Notice } from "@/components/ui/notice";
import { getSignedIn, requireActor } from "@/lib/auth/session";
import { changePassword } from "./actions";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const actor = await requireActor();
  const mustChange = (await getSignedIn())?.mustChangePassword ?? false;
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
      <section
        aria-labelledby="password-title"
        className="max-w-md rounded-lg bg-surface p-5 shadow-sm ring-1 ring-slate-200"
      >
        <h2 id="password-title" className="mb-4 font-semibold">
          Change password
        </h2>
        <PasswordForm action={changePassword} />
        {mustChange ? null : (
          <p className="mt-4 text-xs text-slate-500">
            Changing it signs you out on every other browser and device. <Link href="/settings">Back to settings</Link>
          </p>
        )}
      </section>
    </>
  );
}
