"use client";

import { useActionState } from "react";
import { describedBy, Field, FormMessage, inputClass } from "@/components/ui/field";
import { SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { ClientSecretPanel, WebhookSecretPanel } from "./secret-panel";

type Action = (prev: ActionState, formData: FormData) => Promise<ActionState>;

export interface AppFormValues {
  appId?: string;
  name: string;
  description: string;
  redirectUris: string[];
  scopes: string[];
  installSetting: "agency_only" | "everyone";
  webhookUrl: string;
}

export interface ScopeGroup {
  group: string;
  scopes: { name: string; description: string; levels: readonly ("agency" | "location")[] }[];
}

/** Create or edit an app. After creating, the client secret is shown once in place of the form. */
export function AppForm({
  action,
  values,
  scopeGroups,
  submitLabel,
}: {
  action: Action;
  values: AppFormValues;
  scopeGroups: ScopeGroup[];
  submitLabel: "Create" | "Save";
}) {
  const [state, formAction] = useActionState(action, {});
  const errors = state.fieldErrors ?? {};
  const created = state.data as
    | { clientId?: string; clientSecret?: string; webhookSecret?: string; appId?: string }
    | undefined;

  if (created?.clientSecret && created.clientId) {
    return (
      <div className="space-y-4">
        <FormMessage message={state.message} />
        <ClientSecretPanel clientId={created.clientId} clientSecret={created.clientSecret} />
        {created.webhookSecret ? <WebhookSecretPanel webhookSecret={created.webhookSecret} /> : null}
        {created.appId ? (
          <a href={`/developer/apps/${created.appId}`} className="inline-block text-sm text-brand-700 underline">
            Go to the app
          </a>
        ) : null}
      </div>
    );
  }

  const v = { ...values, ...(state.values ?? {}) };
  const chosenScopes = (state.data?.scopes as string[] | undefined) ?? values.scopes;
  return (
    <form action={formAction} className="space-y-5" noValidate key={JSON.stringify(state.values ?? "")}>
      <FormMessage error={state.error} message={state.message} />
      {values.appId ? <input type="hidden" name="appId" value={values.appId} /> : null}
      <Field id="app-name" label="Name" error={errors.name}>
        <input {...describedBy("app-name", errors.name)} name="name" defaultValue={v.name} className={inputClass} />
      </Field>
      <Field id="app-description" label="Description" error={errors.description}>
        <textarea
          {...describedBy("app-description", errors.description)}
          name="description"
          rows={2}
          defaultValue={v.description}
          className={inputClass}
        />
      </Field>
      <Field
        id="app-redirect-uris"
        label="Redirect URIs"
        error={errors.redirectUris}
        hint="One per line; https, or http on localhost / 127.0.0.1. The install screen sends codes only to these exact URIs."
      >
        <textarea
          {...describedBy("app-redirect-uris", errors.redirectUris, "hint")}
          name="redirectUris"
          rows={3}
          defaultValue={typeof v.redirectUris === "string" ? v.redirectUris : (v.redirectUris as string[]).join("\n")}
          className={`${inputClass} font-mono`}
        />
      </Field>
      <fieldset aria-describedby={errors.installSetting ? "install-setting-error" : undefined}>
        <legend className="text-sm font-medium text-slate-800">Who can install</legend>
        <div className="mt-2 flex gap-6">
          {(
            [
              ["agency_only", "Agency only"],
              ["everyone", "Everyone"],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="installSetting"
                value={value}
                defaultChecked={v.installSetting === value}
                className="h-4 w-4 border-slate-300"
              />
              {label}
            </label>
          ))}
        </div>
        {errors.installSetting ? (
          <p id="install-setting-error" className="mt-1 text-sm text-red-600">
            {errors.installSetting}
          </p>
        ) : null}
      </fieldset>
      <Field
        id="app-webhook-url"
        label="Webhook URL"
        error={errors.webhookUrl}
        hint="Optional. INSTALL and UNINSTALL events are delivered here, signed."
      >
        <input
          {...describedBy("app-webhook-url", errors.webhookUrl, "hint")}
          name="webhookUrl"
          type="url"
          defaultValue={v.webhookUrl}
          className={inputClass}
        />
      </Field>
      <fieldset aria-describedby={errors.scopes ? "scopes-error" : undefined}>
        <legend className="text-sm font-medium text-slate-800">Scopes</legend>
        {errors.scopes ? (
          <p id="scopes-error" className="mt-1 text-sm text-red-600">
            {errors.scopes}
          </p>
        ) : null}
        <div className="mt-2 grid gap-4 sm:grid-cols-2">
          {scopeGroups.map((group) => (
            <div key={group.group}>
              <h3 className="text-xs font-semibold tracking-wide text-slate-500 uppercase">{group.group}</h3>
              <ul className="mt-1 space-y-1">
                {group.scopes.map((scope) => (
                  <li key={scope.name}>
                    <label className="flex items-start gap-2 text-sm" title={scope.description}>
                      <input
                        type="checkbox"
                        name="scopes[]"
                        value={scope.name}
                        defaultChecked={chosenScopes.includes(scope.name)}
                        aria-label={scope.name}
                        aria-describedby={`scope-${scope.name.replace(/[^a-z0-9]/gi, "-")}`}
                        className="mt-0.5 h-4 w-4 rounded border-slate-300"
                      />
                      <span>
                        <span className="font-mono text-xs">{scope.name}</span>
                        <span
                          id={`scope-${scope.name.replace(/[^a-z0-9]/gi, "-")}`}
                          className="block text-xs text-slate-500"
                        >
                          {scope.description} ·{" "}
                          {scope.levels.map((l) => (l === "agency" ? "agency" : "sub-account")).join(" + ")}
                        </span>
                      </span>
                    </label>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
      </fieldset>
      <SubmitButton pendingLabel={submitLabel === "Create" ? "Creating…" : "Saving…"}>{submitLabel}</SubmitButton>
    </form>
  );
}
