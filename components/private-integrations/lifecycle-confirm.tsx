"use client";

import { type ReactNode, useState } from "react";
import { LocalDate } from "@/components/ui/relative-time";
import type { ActionState } from "@/lib/auth/actions";
import { type LifecycleKind, lifecycleActions } from "@/lib/integrations/catalog";
import { ConfirmDialog } from "./confirm-dialog";
import { ROTATION_OVERLAP_DAYS } from "./format";
import { OldTokenUse } from "./rotation-panel";
import type { FormAction, IntegrationActions, IntegrationItem } from "./types";

const OVERLAP_CHOICES = [1, 3, 7, 14, 30] as const;

function Hint({ children }: { children: ReactNode }) {
  return <code className="rounded bg-slate-100 px-1 font-mono text-[13px]">{children}</code>;
}

/** What every confirmation's dialog is given: its catalogue title and tone, its server action, the form and the focus. */
interface DialogProps {
  title: string;
  tone?: "danger";
  idempotent: boolean;
  action: FormAction;
  fields: Record<string, string>;
  onDone: (result: ActionState) => void;
  onClose: () => void;
  fallbackFocus: () => HTMLElement | null;
  returnFocus: () => HTMLElement | null;
}

/** One action's confirmation: the dialog with what it says will happen and when. */
type Confirmation = (props: { item: IntegrationItem; now: () => Date; dialog: DialogProps }) => ReactNode;

/**
 * The confirmation of one lifecycle action, saying exactly what will happen and when: its title,
 * tone and idempotency from the catalogue (lib/integrations/catalog.ts), its words from
 * `confirmations` (one per action, or this does not compile).
 */
export function LifecycleConfirm({
  kind,
  item,
  now,
  actions,
  ...common
}: Omit<DialogProps, "title" | "tone" | "idempotent" | "action"> & {
  kind: LifecycleKind;
  item: IntegrationItem;
  now: () => Date;
  actions: IntegrationActions;
}) {
  const { confirm, revealsToken } = lifecycleActions[kind];
  const Confirm = confirmations[kind];
  const tone = "tone" in confirm ? confirm.tone : undefined;
  const dialog = { title: confirm.title(item.name), tone, idempotent: revealsToken, action: actions[kind], ...common };
  return <Confirm item={item} now={now} dialog={dialog} />;
}

const confirmations: Record<LifecycleKind, Confirmation> = {
  rotateLater: RotateLaterConfirm,
  rotateNow: ({ item, dialog }) => (
    <ConfirmDialog {...dialog}>
      <p>A new token is created and shown once.</p>
      {item.token.neverShown ? (
        <p>
          The current token <Hint>{item.token.hint}</Hint> was never shown: the answer that carried it was lost.
        </p>
      ) : null}
      <p>
        The current token <Hint>{item.token.hint}</Hint> <strong>stops working immediately</strong>: anything still
        using it is refused until it has the new token.
      </p>
      {item.previousToken ? (
        <p>
          The old token <Hint>{item.previousToken.hint}</Hint> of the rotation keeps working until{" "}
          <LocalDate value={item.previousToken.expiresAt} />.
        </p>
      ) : null}
    </ConfirmDialog>
  ),
  expireNow: ({ item, now, dialog }) => {
    const previous = item.previousToken;
    return (
      <ConfirmDialog {...dialog}>
        <p>
          The old token {previous ? <Hint>{previous.hint}</Hint> : null} <strong>stops working immediately</strong>
          {previous ? (
            <>
              {" "}
              instead of on <LocalDate value={previous.expiresAt} />
            </>
          ) : null}
          .
        </p>
        {previous ? (
          <p className="font-medium text-slate-900">
            <OldTokenUse previous={previous} now={now().toISOString()} />
          </p>
        ) : null}
        <p>
          The new token <Hint>{item.token.hint}</Hint> keeps working. Do this once everything uses the new token.
        </p>
      </ConfirmDialog>
    );
  },
  cancelRotation: ({ item, dialog }) => (
    <ConfirmDialog {...dialog}>
      <p>
        The new token <Hint>{item.token.hint}</Hint> <strong>stops working immediately</strong>.
      </p>
      <p>
        The old token {item.previousToken ? <Hint>{item.previousToken.hint}</Hint> : null} stays and keeps working, with
        no end date.
      </p>
    </ConfirmDialog>
  ),
  remove: ({ item, dialog }) => {
    const hints = [item.token.hint, item.previousToken?.hint].filter(Boolean) as string[];
    return (
      <ConfirmDialog {...dialog}>
        <p>
          {hints.length > 1 ? "Both of its tokens" : "Its token"}{" "}
          {hints.map((h, i) => (
            <span key={h}>
              {i ? " and " : ""}
              <Hint>{h}</Hint>
            </span>
          ))}{" "}
          <strong>stop{hints.length > 1 ? "" : "s"} working immediately</strong> and the integration disappears from
          this list.
        </p>
        <p>This cannot be undone. The activity log keeps a record of it.</p>
      </ConfirmDialog>
    );
  },
};

/** `Rotate and expire this token later`, asking how long the old token keeps working (7 days unless chosen). */
function RotateLaterConfirm({ item, now, dialog }: { item: IntegrationItem; now: () => Date; dialog: DialogProps }) {
  const [days, setDays] = useState<number>(ROTATION_OVERLAP_DAYS);
  const until = new Date(now().getTime() + days * 24 * 60 * 60 * 1000);
  return (
    <ConfirmDialog {...dialog} fields={{ ...dialog.fields, overlapDays: String(days) }}>
      <p>A new token is created and shown once.</p>
      <fieldset className="space-y-1">
        <legend className="font-medium text-slate-800">How long does the old token keep working?</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {OVERLAP_CHOICES.map((choice) => (
            <label key={choice} className="flex items-center gap-1.5">
              <input
                type="radio"
                name="overlapDays"
                value={choice}
                checked={days === choice}
                onChange={() => setDays(choice)}
              />
              {choice === 1 ? "1 day" : `${choice} days`}
            </label>
          ))}
        </div>
      </fieldset>
      <p>
        The current token <Hint>{item.token.hint}</Hint> keeps working until{" "}
        <strong>
          <LocalDate value={until} />
        </strong>{" "}
        ({days === 1 ? "1 day" : `${days} days`}), then stops. Put the new token in place before then; you can expire
        the old one sooner, or cancel the rotation.
      </p>
    </ConfirmDialog>
  );
}
