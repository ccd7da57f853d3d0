// Over 250 lines on purpose: the screen's one state machine (which form is open, which
// confirmation, the revealed token, where the keyboard goes next) and the layout that reads it;
// what it renders lives in files of its own.
"use client";

import { type ReactNode, useEffect, useRef, useState } from "react";
import { useGuardedActions } from "@/components/account/confirm-identity";
import { PageHeader } from "@/components/page-header";
import { viewerTimeZone } from "@/components/ui/relative-time";
import { buttonClass } from "@/components/ui/submit-button";
import type { ActionState } from "@/lib/auth/actions";
import { formatDateTime } from "@/lib/dates/format";
import type { LifecycleKind } from "@/lib/integrations/catalog";
import { utcDate } from "@/lib/integrations/expiry";
import { defaultExpires } from "@/lib/integrations/expiry-presets";
import { IntegrationHistory } from "./activity";
import { IntegrationDetails, integrationTitleId } from "./integration-card";
import { IntegrationForm } from "./integration-form";
import { IntegrationTable } from "./integration-table";
import { LifecycleConfirm } from "./lifecycle-confirm";
import { MaximumLifetimeForm, MaximumLifetimeNote } from "./maximum-lifetime";
import { type RevealedToken, TOKEN_COPY_BUTTON, TokenDialog } from "./token-dialog";
import type {
  AuditItem,
  IntegrationActions,
  IntegrationItem,
  IntegrationList,
  ScopeGroup,
  SubAccountOption,
} from "./types";
import { IntegrationUsagePanel } from "./usage-panel";

type Mode =
  | { kind: "list" }
  | { kind: "create" }
  | { kind: "details"; id: string }
  | { kind: "edit"; id: string; focus?: "expires" };

const LIST_HEADING = "pi-list-title";
const CREATE_BUTTON = "pi-create-button";

function byId(id: string) {
  return document.getElementById(id);
}

/**
 * The Private Integrations screen of one level: the list, the create and edit forms, every
 * lifecycle action behind a confirmation, and the show-once token dialog. A new token lives only in
 * this component's state while its dialog is open; closing the dialog forgets it.
 */
export function PrivateIntegrationsManager({
  level,
  ownerName,
  locationId,
  list,
  groups,
  subAccountOptions,
  maximumLifetimeDays,
  actions: unguardedActions,
  renderedAt,
  audit = [],
  auditMore = false,
  children,
  open,
}: {
  level: "agency" | "location";
  ownerName: string;
  locationId?: string;
  /** The page of the list the address asks for (the server searches, filters, sorts and pages). */
  list: IntegrationList;
  groups: ScopeGroup[];
  /** The agency's sub-accounts, for `Sub-accounts` (agency screen only). */
  subAccountOptions?: SubAccountOption[];
  /** The agency's `Maximum token lifetime` in days, or null. */
  maximumLifetimeDays: number | null;
  actions: IntegrationActions;
  /** The server's clock when the page was rendered, for dates in confirmations. */
  renderedAt: string;
  /** Audit entries (newest first), for each integration's details. */
  audit?: AuditItem[];
  /** Whether older audit entries than `audit` exist (then each history offers `Show more`). */
  auditMore?: boolean;
  /** Shown below the list (the activity log). */
  children?: ReactNode;
  /** A notification's link (`?integration=<id>&action=…`): the dialog to open at once. */
  open?: { integrationId: string; action: "rotate-later" | "rotate-now" | "extend" };
}) {
  // Create, rotations, Delete and Save maximum may ask `Confirm it's you` first (the server says when).
  const actions = useGuardedActions(unguardedActions);
  const items = list.rows;
  const opened = open && items.some((i) => i.id === open.integrationId) ? open : undefined;
  // `Extend expiry` is the Edit form, whose Expires field extends it.
  const [mode, setMode] = useState<Mode>(
    opened?.action === "extend" ? { kind: "edit", id: opened.integrationId, focus: "expires" } : { kind: "list" },
  );
  const [confirm, setConfirm] = useState<{ kind: LifecycleKind; id: string } | null>(
    opened?.action === "rotate-later"
      ? { kind: "rotateLater", id: opened.integrationId }
      : opened?.action === "rotate-now"
        ? { kind: "rotateNow", id: opened.integrationId }
        : null,
  );
  const [revealed, setRevealed] = useState<RevealedToken | null>(null);
  const [notice, setNotice] = useState("");
  // Server clock minus browser clock, so "keeps working until …" matches what the server will set.
  const [skew] = useState(() => Date.parse(renderedAt) - Date.now());
  // The server's date, which Expires' buttons and default count from.
  const today = utcDate(new Date(Date.now() + skew));
  // Where the keyboard goes once the element exists: the re-rendered list can arrive a commit later.
  const focusNext = useRef<string | null>(null);
  // Whether the open confirmation was confirmed (then its opener may be gone or about to go).
  const confirmed = useRef(false);
  // Whether confirming it showed a new token (then the keyboard goes to that token's dialog).
  const tokenShown = useRef(false);
  useEffect(() => {
    const element = focusNext.current ? byId(focusNext.current) : null;
    if (!element) return;
    focusNext.current = null;
    // Unless the person has moved on meanwhile: then the keyboard stays where they put it.
    const active = document.activeElement;
    if (!active || active === document.body || active.id === LIST_HEADING) element.focus();
  });

  const levelWords = level === "agency" ? "agency-level integrations" : "sub-account integrations";
  const ownerFields: Record<string, string> = locationId ? { locationId } : {};
  const confirming = confirm ? items.find((i) => i.id === confirm.id) : undefined;

  function openCreate() {
    setNotice("");
    setMode({ kind: "create" });
  }

  function closeForm(focusId: string) {
    focusNext.current = focusId;
    setMode({ kind: "list" });
  }

  function created(result: ActionState) {
    const data = result.data as { token: string; integrationId: string; name: string; confirmKey?: string };
    setMode({ kind: "list" });
    setNotice(`“${data.name}” was created.`);
    setRevealed({
      token: data.token,
      integrationId: data.integrationId,
      integrationName: data.name,
      confirmKey: data.confirmKey,
    });
  }

  /** Tells the server the token of the answer to `key` is on screen: its row stops reading `Token never shown`. */
  function confirmShown(key: string) {
    const send = actions.confirmShown;
    if (!send) return;
    const form = new FormData();
    form.set("idempotencyKey", key);
    // One more try after a dropped connection; the row reads `Token never shown` only if both fail.
    send({}, form).catch(() =>
      new Promise((resolve) => window.setTimeout(resolve, 2000)).then(() => send({}, form)).catch(() => undefined),
    );
  }

  /** Opens a lifecycle confirmation, from the row's menu or the details' rotation panel. */
  function ask(kind: LifecycleKind, id: string) {
    setNotice("");
    confirmed.current = false;
    setConfirm({ kind, id });
  }

  function lifecycleDone(kind: LifecycleKind, item: IntegrationItem, result: ActionState) {
    confirmed.current = true;
    tokenShown.current = Boolean((result.data as { token?: string } | undefined)?.token);
    setConfirm(null);
    setNotice(result.message ?? "");
    const data = result.data as { token?: string; oldTokenExpiresAt?: string; confirmKey?: string } | undefined;
    if (data?.token) {
      setRevealed({
        token: data.token,
        integrationId: item.id,
        integrationName: item.name,
        confirmKey: data.confirmKey,
        note:
          kind === "rotateLater" && data.oldTokenExpiresAt
            ? `The old token ${item.token.hint} keeps working until ${formatDateTime(data.oldTokenExpiresAt, viewerTimeZone())}.`
            : `The old token ${item.token.hint} no longer works.`,
      });
    }
  }

  return (
    <>
      <PageHeader
        title="Private Integrations"
        description={
          <>
            Static tokens with only the scopes you choose, for {level === "agency" ? "the agency" : "the sub-account"}{" "}
            <strong className="font-medium text-slate-800">{ownerName}</strong>. Each token is shown once; rotate it at
            least every 90 days.
          </>
        }
        actions={
          mode.kind === "create" ? null : (
            <button id={CREATE_BUTTON} type="button" onClick={openCreate} className={buttonClass("primary")}>
              Create new integration
            </button>
          )
        }
      />

      <p role="status" aria-live="polite" className={notice ? "mb-4 text-sm text-emerald-800" : "sr-only"}>
        {notice}
      </p>

      {revealed ? (
        <TokenDialog
          key={revealed.token}
          revealed={revealed}
          onClose={() => setRevealed(null)}
          onShown={revealed.confirmKey ? () => confirmShown(revealed.confirmKey as string) : undefined}
          returnFocus={() => {
            const title = integrationTitleId(revealed.integrationId);
            // The refreshed list may arrive after the dialog closes: then the keyboard waits on the
            // list's heading and moves to the new row as soon as it is rendered.
            if (!byId(title)) focusNext.current = title;
            return byId(title) ?? byId(LIST_HEADING);
          }}
        />
      ) : null}

      {mode.kind === "create" ? (
        <section
          aria-labelledby="pi-create-title"
          className="mb-8 rounded-lg bg-surface p-5 shadow-sm ring-1 ring-brand-500/40"
        >
          <h2 id="pi-create-title" className="mb-4 text-base font-semibold">
            New private integration
          </h2>
          <IntegrationForm
            mode="create"
            idPrefix="pi-new"
            groups={groups}
            subAccountOptions={subAccountOptions}
            maximumLifetimeDays={maximumLifetimeDays}
            levelWords={levelWords}
            action={actions.create}
            fields={ownerFields}
            defaultExpires={defaultExpires(today, maximumLifetimeDays)}
            today={today}
            onDone={created}
            onCancel={() => closeForm(CREATE_BUTTON)}
          />
        </section>
      ) : null}

      <section aria-labelledby={LIST_HEADING}>
        <h2 id={LIST_HEADING} tabIndex={-1} className="mb-3 text-sm font-semibold text-slate-700">
          {list.total === 1 ? "1 integration" : `${list.total} integrations`}
        </h2>
        {list.total === 0 ? (
          <div className="rounded-lg border-2 border-dashed border-slate-200 p-8 text-center">
            <p className="font-medium text-slate-800">No private integrations yet</p>
            <p className="mx-auto mt-1 max-w-md text-sm text-slate-600">
              Create one to give your own scripts or a third-party tool a token that can do only what you allow. You can
              change its scopes, rotate it or delete it at any time.
            </p>
          </div>
        ) : (
          <IntegrationTable
            list={list}
            now={renderedAt}
            expanded={mode.kind === "details" || mode.kind === "edit" ? mode.id : null}
            onToggleDetails={(id) => {
              setNotice("");
              setMode(mode.kind === "details" && mode.id === id ? { kind: "list" } : { kind: "details", id });
            }}
            onEdit={(id, focus) => {
              setNotice("");
              setMode({ kind: "edit", id, focus });
            }}
            onAction={ask}
            renderExpanded={(item) => (
              <IntegrationDetails
                item={item}
                now={renderedAt}
                usage={
                  actions.readUsage ? (
                    <IntegrationUsagePanel
                      integrationId={item.id}
                      readUsage={actions.readUsage}
                      fields={{ ...ownerFields, integrationId: item.id }}
                    />
                  ) : undefined
                }
                audit={
                  <IntegrationHistory
                    integrationId={item.id}
                    first={{ entries: audit.filter((e) => e.integrationId === item.id), more: auditMore }}
                    now={renderedAt}
                    read={actions.readActivity}
                    fields={ownerFields}
                  />
                }
                onAction={(kind) => ask(kind, item.id)}
                editForm={
                  mode.kind === "edit" && mode.id === item.id ? (
                    <IntegrationForm
                      mode="edit"
                      idPrefix={`pi-${item.id}`}
                      initial={item}
                      groups={groups}
                      subAccountOptions={subAccountOptions}
                      maximumLifetimeDays={maximumLifetimeDays}
                      levelWords={levelWords}
                      action={actions.update}
                      fields={{ ...ownerFields, integrationId: item.id }}
                      focusField={mode.focus}
                      today={today}
                      onDone={(result) => {
                        setNotice(result.message ?? "Saved.");
                        closeForm(integrationTitleId(item.id));
                      }}
                      onCancel={() => closeForm(integrationTitleId(item.id))}
                    />
                  ) : undefined
                }
              />
            )}
          />
        )}
      </section>

      {level === "agency" && actions.setMaximumLifetime ? (
        <MaximumLifetimeForm
          action={actions.setMaximumLifetime}
          current={maximumLifetimeDays}
          onSaved={(message) => setNotice(message)}
        />
      ) : (
        <MaximumLifetimeNote days={maximumLifetimeDays} />
      )}

      {children}

      {confirm && confirming ? (
        <LifecycleConfirm
          kind={confirm.kind}
          item={confirming}
          now={() => new Date(Date.now() + skew)}
          actions={actions}
          fields={{ ...ownerFields, integrationId: confirming.id }}
          onDone={(result) => lifecycleDone(confirm.kind, confirming, result)}
          onClose={() => setConfirm(null)}
          returnFocus={() => {
            if (!confirmed.current) return null;
            // A new token is shown: into its dialog, as after creating.
            if (tokenShown.current) return byId(TOKEN_COPY_BUTTON);
            // Rotating or deleting replaces the buttons: land on something that stays.
            return confirm.kind === "remove" ? byId(LIST_HEADING) : byId(integrationTitleId(confirming.id));
          }}
          fallbackFocus={() => byId(integrationTitleId(confirming.id)) ?? byId(LIST_HEADING)}
        />
      ) : null}
    </>
  );
}
