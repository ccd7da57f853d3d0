"use client";

import { useActionState, useState } from "react";
import { ScopePicker } from "@/components/private-integrations/scope-picker";
import { Choice, ChoiceGroup, FormMessage, InputField, radioClass, TextareaField } from "@/components/ui/field";
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
      <InputField id="app-name" label="Name" error={errors.name} name="name" defaultValue={v.name} />
      <TextareaField
        id="app-description"
        label="Description"
        error={errors.description}
        name="description"
        rows={2}
        defaultValue={v.description}
      />
      <TextareaField
        id="app-redirect-uris"
        label="Redirect URIs"
        error={errors.redirectUris}
        hint="One per line; https, or http on localhost / 127.0.0.1. The install screen sends codes only to these exact URIs."
        name="redirectUris"
        rows={3}
        defaultValue={typeof v.redirectUris === "string" ? v.redirectUris : (v.redirectUris as string[]).join("\n")}
        className="font-mono"
      />
      <ChoiceGroup
        legend="Who can install"
        errorId="install-setting-error"
        error={errors.installSetting}
        errorClassName="mt-1 text-sm text-red-600"
      >
        <div className="mt-2 flex gap-6">
          {(
            [
              ["agency_only", "Agency only"],
              ["everyone", "Everyone"],
            ] as const
          ).map(([value, label]) => (
            <Choice
              key={value}
              type="radio"
              name="installSetting"
              value={value}
              defaultChecked={v.installSetting === value}
              className={radioClass}
            >
              {label}
            </Choice>
          ))}
        </div>
      </ChoiceGroup>
      <InputField
        id="app-webhook-url"
        label="Webhook URL"
        error={errors.webhookUrl}
        hint="Optional. INSTALL and UNINSTALL events are delivered here, signed."
        name="webhookUrl"
        type="url"
        defaultValue={v.webhookUrl}
      />
      <AppScopes groups={scopeGroups} chosen={chosenScopes} error={errors.scopes} />
      <SubmitButton pendingLabel={submitLabel === "Create" ? "Creating…" : "Saving…"}>{submitLabel}</SubmitButton>
    </form>
  );
}

/**
 * The app's scopes with the same grouped, searchable picker as the integration form (SPEC.md);
 * each scope says the levels it works at. Reset with the form (it is keyed on what was sent).
 */
function AppScopes({ groups, chosen, error }: { groups: ScopeGroup[]; chosen: string[]; error?: string }) {
  const [selected, setSelected] = useState<Set<string>>(() => new Set(chosen));
  const withLevels = groups.map((g) => ({
    group: g.group,
    scopes: g.scopes.map((s) => ({
      name: s.name,
      description: `${s.description} · ${s.levels.map((l) => (l === "agency" ? "agency" : "sub-account")).join(" + ")}`,
    })),
  }));
  return <ScopePicker groups={withLevels} selected={selected} onChange={setSelected} error={error} levelWords="apps" />;
}
