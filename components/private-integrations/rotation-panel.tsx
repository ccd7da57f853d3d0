"use client";

import { buttonClass } from "@/components/ui/button-styles";
import { LocalDate, RelativeTime } from "@/components/ui/relative-time";
import { type LifecycleKind, lifecycleActions } from "@/lib/integrations/catalog";
import type { IntegrationItem } from "./types";

type PreviousToken = NonNullable<IntegrationItem["previousToken"]>;

function From({ address }: { address: string | null }) {
  if (!address || address === "unknown") return <> (from an address that was not recorded)</>;
  return (
    <>
      {" "}
      from <span className="font-mono">{address}</span>
    </>
  );
}

/**
 * Whether the old token of a rotation is still used: when and from which address it was last used,
 * or that it was not used since the rotation began (its earlier use said as such). Uses are
 * recorded at most once a minute, but the first one after the rotation at once (verify.ts).
 */
export function OldTokenUse({ previous, now }: { previous: PreviousToken; now: string }) {
  const { lastUsedAt, lastUsedAddress, rotatedAt } = previous;
  // A rotation begun before its start was recorded: its last use is said as it is.
  const usedSince = lastUsedAt !== null && (rotatedAt === null || lastUsedAt >= rotatedAt);
  if (usedSince) {
    return (
      <>
        Old token last used <RelativeTime value={lastUsedAt} now={now} />
        <From address={lastUsedAddress} />.
      </>
    );
  }
  return (
    <>
      Old token not used since the rotation
      {lastUsedAt ? (
        <>
          {" "}
          (last used <RelativeTime value={lastUsedAt} now={now} />
          <From address={lastUsedAddress} />, before it began)
        </>
      ) : null}
      .
    </>
  );
}

/**
 * The rotation in progress in an integration's details: when the old token stops, whether it is
 * still used, and `Expire Now` and `Cancel rotation` (the same confirmations as the row's menu).
 */
export function RotationPanel({
  item,
  previous,
  now,
  onAction,
}: {
  item: IntegrationItem;
  previous: PreviousToken;
  now: string;
  onAction?: (kind: LifecycleKind) => void;
}) {
  return (
    <section
      aria-label="Rotation in progress"
      className="mt-4 rounded-md bg-blue-50 p-4 text-sm text-blue-950 ring-1 ring-blue-200"
    >
      <p className="font-medium">
        Rotation in progress: the old token <code className="font-mono">{previous.hint}</code> stops working on{" "}
        <LocalDate value={previous.expiresAt} />.
      </p>
      <p className="mt-1 text-blue-950">
        <OldTokenUse previous={previous} now={now} />
      </p>
      <p className="mt-1 text-blue-900">
        The new token <code className="font-mono">{item.token.hint}</code> already works. Once everything uses it,
        expire the old one now; if the new one was a mistake, cancel the rotation to keep the old one.
      </p>
      {onAction ? (
        <div className="mt-3 flex flex-wrap gap-2">
          <button type="button" onClick={() => onAction("expireNow")} className={buttonClass("danger")}>
            {lifecycleActions.expireNow.button}
          </button>
          <button type="button" onClick={() => onAction("cancelRotation")} className={buttonClass("secondary")}>
            {lifecycleActions.cancelRotation.button}
          </button>
        </div>
      ) : null}
    </section>
  );
}
