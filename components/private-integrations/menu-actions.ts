import type { LifecycleKind } from "@/lib/integrations/catalog";
import { type IntegrationStatus, lifecycleActions } from "@/lib/integrations/catalog";
import type { MenuAction } from "./actions-menu";
import type { IntegrationItem } from "./types";

/** The lifecycle entries of a row's menu, by what its status allows (SPEC.md). */
export function menuActions(
  item: IntegrationItem,
  status: IntegrationStatus,
  onEdit: (focus?: "expires") => void,
  onAction: (kind: LifecycleKind) => void,
): MenuAction[] {
  const remove = { label: lifecycleActions.remove.button, onSelect: () => onAction("remove"), danger: true };
  // An expired integration's new token would never work: extend it first (the server refuses too).
  if (status === "expired") return [{ label: "Extend expiry", onSelect: () => onEdit("expires") }, remove];
  const edit = { label: "Edit", onSelect: () => onEdit() };
  // Reported as leaked: only a new token brings it back (the server refuses the other rotations).
  if (status === "revoked")
    return [{ label: lifecycleActions.rotateNow.button, onSelect: () => onAction("rotateNow") }, edit, remove];
  if (status === "rotating" && item.previousToken)
    return [
      { label: lifecycleActions.expireNow.button, onSelect: () => onAction("expireNow") },
      { label: lifecycleActions.cancelRotation.button, onSelect: () => onAction("cancelRotation") },
      edit,
      remove,
    ];
  return [
    { label: lifecycleActions.rotateLater.button, onSelect: () => onAction("rotateLater") },
    { label: lifecycleActions.rotateNow.button, onSelect: () => onAction("rotateNow") },
    edit,
    remove,
  ];
}
