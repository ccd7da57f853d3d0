import {
  type IntegrationStatus,
  type LifecycleKind,
  lifecycleActions,
  lifecycleKinds,
} from "@/lib/integrations/catalog";
import type { MenuAction } from "./actions-menu";
import type { IntegrationItem } from "./types";

/**
 * The entries of a row's menu, by what its status allows (each action's `menu.allowedIn` in the
 * catalogue), in the catalogue's order: the lifecycle actions, then `Edit`, then the dangerous
 * ones (`Delete`).
 */
export function menuActions(
  item: IntegrationItem,
  status: IntegrationStatus,
  onEdit: (focus?: "expires") => void,
  onAction: (kind: LifecycleKind) => void,
): MenuAction[] {
  // A rotation whose old token is gone already (its overlap just ended) offers what an active one does.
  const shown = status === "rotating" && !item.previousToken ? "active" : status;
  const allowed = lifecycleKinds.filter((kind) =>
    (lifecycleActions[kind].menu.allowedIn as readonly IntegrationStatus[]).includes(shown),
  );
  const entry = (kind: LifecycleKind): MenuAction => ({
    label: lifecycleActions[kind].button,
    onSelect: () => onAction(kind),
    ...(isDanger(kind) ? { danger: true } : {}),
  });
  // An expired integration's new token would never work: extend it first (the server refuses too).
  const edit =
    status === "expired"
      ? { label: "Extend expiry", onSelect: () => onEdit("expires") }
      : { label: "Edit", onSelect: () => onEdit() };
  return [...allowed.filter((kind) => !isDanger(kind)).map(entry), edit, ...allowed.filter(isDanger).map(entry)];
}

const isDanger = (kind: LifecycleKind): boolean => "danger" in lifecycleActions[kind].menu;
