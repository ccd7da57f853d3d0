"use client";
// Over 250 lines on purpose: the Keys section's three ways to add a key and its list, which share one action state and one confirmation.

import { useActionState, useId, useState } from "react";
import { useGuardedAction } from "@/components/account/confirm-identity";
import { ConfirmDialog } from "@/components/private-integrations/confirm-dialog";
import type { FormAction } from "@/components/private-integrations/types";
import { CodeBlock } from "@/components/ui/code-block";
import { CopyButton } from "@/components/ui/copy-button";
import { Choice, ChoiceGroup, FormMessage, InputField, radioClass, TextareaField } from "@/components/ui/field";
import { useForgetWhenShown, useOncePerPress } from "@/components/ui/once-per-press";
import { RelativeTime } from "@/components/ui/relative-time";
import { buttonClass, SubmitButton } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";

/** One key of the list, as the client receives it (dates as ISO strings). */
export interface AppKeyListItem {
  id: string;
  source: "public_key" | "generated" | "jwks_url";
  kid: string | null;
  jwksUrl: string | null;
  alg: "ES256" | "RS256" | null;
  createdAt: string;
  lastUsedAt: string | null;
  lastUsedKid: string | null;
}

/** The server actions of the section, each guarded by `Confirm it's you` on the server. */
export interface AppKeyActions {
  /** `appId`, `jwk`. */
  add: FormAction;
  /** `appId`, `alg`: `data.privateKeyPem` once. */
  generate: FormAction;
  /** `appId`, `jwksUrl`. */
  setJwksUrl: FormAction;
  /** `appId`, `keyId`. */
  remove: FormAction;
  /** `idempotencyKey`: the private key was shown; the server forgets its answer. */
  forgetShown: FormAction;
}

const sourceLabels: Record<AppKeyListItem["source"], string> = {
  public_key: "Public key",
  generated: "Generated here",
  jwks_url: "JWKS URL",
};

/**
 * An app's keys (SPEC.md › App keys): the list (kid, how it was added, when, last use, `Remove`),
 * then `Add public key`, `Generate key pair` (the private key offered once, as a PEM download) and
 * `JWKS URL`. Every change may first ask `Confirm it's you`; refusals are said beside the field.
 */
export function AppKeys({
  appId,
  keys,
  renderedAt,
  actions,
}: {
  appId: string;
  keys: AppKeyListItem[];
  renderedAt: string;
  actions: AppKeyActions;
}) {
  const ids = useId();
  const remove = useGuardedAction(actions.remove);
  const [removing, setRemoving] = useState<AppKeyListItem>();
  const [removed, setRemoved] = useState<string>();
  const jwksUrl = keys.find((k) => k.source === "jwks_url")?.jwksUrl ?? "";

  return (
    // A kid or URL in a message breaks where it must rather than widen the page.
    <div className="space-y-6 [overflow-wrap:anywhere]">
      <p className="text-sm text-slate-600">
        Your servers sign client assertions (<code>private_key_jwt</code>) with these keys. An assertion authenticates
        the app at <code>/oauth/token</code> in place of the client secret, and gets installation tokens{" "}
        <span className="whitespace-nowrap">
          (<code>grant_type=client_credentials</code>)
        </span>{" "}
        without anyone reinstalling. Only public keys are kept here.
      </p>

      <div className="space-y-2">
        <FormMessage message={removed} />
        {keys.length ? (
          <ul aria-label="Keys of the app" className="divide-y divide-slate-200 rounded-md ring-1 ring-slate-200">
            {keys.map((key) => (
              <li key={key.id} className="flex flex-wrap items-center justify-between gap-3 px-3 py-3 sm:px-4">
                <div id={`${ids}-${key.id}`} className="min-w-0 flex-1 space-y-1 text-sm">
                  {key.source === "jwks_url" ? (
                    <p className="text-slate-900">
                      <span className="font-medium">JWKS URL</span>{" "}
                      <code className="break-all text-xs" data-testid="jwks-url">
                        {key.jwksUrl}
                      </code>
                    </p>
                  ) : (
                    <p className="text-slate-900">
                      <span className="font-medium">kid</span>{" "}
                      <code className="break-all text-xs" data-testid="key-kid">
                        {key.kid}
                      </code>
                    </p>
                  )}
                  <p className="text-slate-600">
                    {key.source === "jwks_url" ? "Keys fetched from it" : sourceLabels[key.source]}
                    {key.alg ? ` · ${key.alg}` : ""} · added <RelativeTime value={key.createdAt} now={renderedAt} /> ·{" "}
                    {key.lastUsedAt ? (
                      <>
                        last used <RelativeTime value={key.lastUsedAt} now={renderedAt} />
                        {key.lastUsedKid ? (
                          <>
                            {" "}
                            (kid <code className="break-all text-xs">{key.lastUsedKid}</code>)
                          </>
                        ) : null}
                      </>
                    ) : (
                      "Never used"
                    )}
                  </p>
                </div>
                <button
                  type="button"
                  aria-describedby={`${ids}-${key.id}`}
                  onClick={() => {
                    setRemoved(undefined);
                    setRemoving(key);
                  }}
                  className={buttonClass("secondary")}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="rounded-md px-3 py-3 text-sm text-slate-600 ring-1 ring-slate-200">
            No keys yet. Add a public key, generate a key pair or save a JWKS URL below.
          </p>
        )}
      </div>

      <AddPublicKey appId={appId} action={actions.add} idPrefix={ids} />
      <GenerateKeyPair appId={appId} action={actions.generate} forgetShown={actions.forgetShown} idPrefix={ids} />
      <JwksUrl appId={appId} action={actions.setJwksUrl} idPrefix={ids} current={jwksUrl} />

      {removing ? (
        <ConfirmDialog
          title={removing.source === "jwks_url" ? "Remove the JWKS URL?" : `Remove the key ${removing.kid}?`}
          action={remove}
          fields={{ appId, keyId: removing.id }}
          tone="danger"
          onClose={() => setRemoving(undefined)}
          onDone={(state: ActionState) => {
            setRemoving(undefined);
            setRemoved(state.message);
          }}
          fallbackFocus={() => document.getElementById(`${ids}-jwk`)}
        >
          <p>
            {removing.source === "jwks_url"
              ? "Keys published at it are no longer accepted, from now on."
              : "Assertions signed with it are refused from now on."}{" "}
            A server still signing with it can no longer get tokens until it uses another key of the app.
          </p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={id} className="space-y-3 border-t border-slate-200 pt-5">
      <h3 id={id} className="text-sm font-semibold text-slate-800">
        {title}
      </h3>
      {children}
    </section>
  );
}

/** The form's key: a refusal re-mounts it with what was typed, a success empties it. */
const formKey = (state: ActionState, extra = "") => `${state.ok ? "ok" : JSON.stringify(state.values ?? "")}${extra}`;

function AddPublicKey({ appId, action, idPrefix }: { appId: string; action: FormAction; idPrefix: string }) {
  const [state, formAction] = useActionState(useGuardedAction(action), {});
  return (
    <Section id={`${idPrefix}-add-title`} title="Add public key">
      <form action={formAction} className="space-y-3" noValidate key={formKey(state)}>
        <FormMessage error={state.error} message={state.ok ? state.message : undefined} />
        <input type="hidden" name="appId" value={appId} />
        <TextareaField
          id={`${idPrefix}-jwk`}
          label="Public key (JWK)"
          name="jwk"
          rows={5}
          spellCheck={false}
          autoComplete="off"
          className="font-mono text-xs"
          placeholder='{"kty":"EC","crv":"P-256","x":"…","y":"…","kid":"…"}'
          hint="One JWK: EC P-256 (ES256) or RSA of at least 2048 bits (RS256). Its kid is kept; without one, its thumbprint becomes its kid."
          error={state.fieldErrors?.jwk}
          defaultValue={state.ok ? "" : (state.values?.jwk ?? "")}
        />
        <SubmitButton variant="secondary" pendingLabel="Adding…">
          Add public key
        </SubmitButton>
      </form>
    </Section>
  );
}

/**
 * `Generate key pair`. Its idempotency key lasts until the private key it brought is put away: after
 * a lost answer, pressing again brings the same pair, never a second key.
 */
function GenerateKeyPair({
  appId,
  action,
  forgetShown,
  idPrefix,
}: {
  appId: string;
  action: FormAction;
  forgetShown: FormAction;
  idPrefix: string;
}) {
  const once = useOncePerPress(action, "Press Generate key pair again", "the same private key");
  const [state, formAction] = useActionState(useGuardedAction(once.action), {});
  const [hidden, setHidden] = useState<string>();
  const made = state.data as { privateKeyPem?: string; kid?: string; keyId?: string } | undefined;
  const shown = made?.privateKeyPem && made.keyId !== hidden ? made : undefined;
  useForgetWhenShown(forgetShown, once.key, Boolean(shown));
  return (
    <Section id={`${idPrefix}-generate-title`} title="Generate key pair">
      {shown?.privateKeyPem ? (
        <PrivateKeyOnce
          pem={shown.privateKeyPem}
          kid={shown.kid ?? "key"}
          message={state.message}
          onDone={() => {
            setHidden(shown.keyId);
            once.renew();
          }}
        />
      ) : (
        <form action={formAction} className="space-y-3" noValidate key={formKey(state, hidden)}>
          <FormMessage error={state.error} />
          <p className="text-sm text-slate-600">
            A new key pair is made on the server: its public key is added here, and its private key is offered to you
            once, as a PEM file. It is not kept.
          </p>
          <input type="hidden" name="appId" value={appId} />
          <ChoiceGroup
            legend="Algorithm"
            errorId={`${idPrefix}-alg-error`}
            error={state.fieldErrors?.alg}
            className="space-y-2"
          >
            <div className="flex flex-wrap gap-x-6 gap-y-2 pt-1">
              <Choice type="radio" name="alg" value="ES256" defaultChecked className={radioClass}>
                ES256 (EC P-256)
              </Choice>
              <Choice type="radio" name="alg" value="RS256" className={radioClass}>
                RS256 (RSA 2048)
              </Choice>
            </div>
          </ChoiceGroup>
          <SubmitButton variant="secondary" pendingLabel="Generating…">
            Generate key pair
          </SubmitButton>
        </form>
      )}
    </Section>
  );
}

/** The private key of a pair made just now: a download and the PEM, this once, with what it means. */
function PrivateKeyOnce({
  pem,
  kid,
  message,
  onDone,
}: {
  pem: string;
  kid: string;
  message?: string;
  onDone: () => void;
}) {
  const titleId = useId();
  const href = `data:application/x-pem-file;charset=utf-8,${encodeURIComponent(pem)}`;
  const fileName = `app-key-${kid.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 16) || "private"}.pem`;
  return (
    <div className="space-y-3">
      <FormMessage message={message} />
      <section aria-labelledby={titleId} className="space-y-3 rounded-lg bg-amber-50 p-4 text-sm ring-1 ring-amber-200">
        <h4 id={titleId} className="font-semibold text-amber-900">
          Download the private key now
        </h4>
        <p className="text-amber-900">
          It is shown only this once and is not kept here: only its public key is. Store it where your server signs its
          assertions (with <code>kid</code> <code className="break-all">{kid}</code>) and nowhere else. If you lose it,
          generate a new pair and remove this key.
        </p>
        <div className="flex flex-wrap gap-2">
          <a href={href} download={fileName} className={buttonClass("primary")}>
            Download private key
          </a>
          <CopyButton value={pem} label="Copy private key" />
        </div>
        <CodeBlock data-testid="private-key-pem" className="max-h-48">
          {pem}
        </CodeBlock>
        <button type="button" onClick={onDone} className={buttonClass("secondary")}>
          I have saved it
        </button>
      </section>
    </div>
  );
}

function JwksUrl({
  appId,
  action,
  idPrefix,
  current,
}: {
  appId: string;
  action: FormAction;
  idPrefix: string;
  current: string;
}) {
  const [state, formAction] = useActionState(useGuardedAction(action), {});
  return (
    <Section id={`${idPrefix}-jwks-title`} title="JWKS URL">
      <form action={formAction} className="space-y-3" noValidate key={formKey(state, current)}>
        <FormMessage error={state.error} message={state.ok ? state.message : undefined} />
        <input type="hidden" name="appId" value={appId} />
        <InputField
          id={`${idPrefix}-jwks-url`}
          label="JWKS URL"
          name="jwksUrl"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://app.example.com/.well-known/jwks.json"
          hint="Where your server publishes its public keys (a JWK Set), over HTTPS. It is fetched when an assertion names a kid not yet seen; saving another URL replaces this one."
          error={state.fieldErrors?.jwksUrl}
          defaultValue={state.ok ? current : (state.values?.jwksUrl ?? current)}
        />
        <SubmitButton variant="secondary" pendingLabel="Saving…">
          Use this JWKS URL
        </SubmitButton>
      </form>
    </Section>
  );
}
