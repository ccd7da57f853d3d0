import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/login-form";
import { safeReturnPath } from "@/lib/auth/same-origin";
import { getActor } from "@/lib/auth/session";
import { appUrl } from "@/lib/env";
import { passkeyOptionsAction } from "./actions";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = typeof params.callbackUrl === "string" ? params.callbackUrl : undefined;
  if (await getActor()) redirect(safeReturnPath(callbackUrl, appUrl()));
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm rounded-xl bg-surface p-8 shadow-sm ring-1 ring-slate-200">
        <h1 className="text-xl font-semibold">Sign in</h1>
        <p className="mt-1 mb-6 text-sm text-slate-600">Manage your agency, sub-accounts, apps and integrations.</p>
        <LoginForm
          callbackUrl={callbackUrl}
          passkeyOptions={passkeyOptionsAction}
          appOrigin={new URL(appUrl()).origin}
        />
      </div>
    </main>
  );
}
