"use client";

import { type RefObject, useEffect, useRef, useState } from "react";
import { Modal } from "@/components/private-integrations/modal";
import { buttonClass } from "./button-styles";

/** What the form holds, ignoring empty fields (a field that appears empty later is no change). */
function snapshot(form: HTMLFormElement | null): string {
  if (!form) return "";
  const filled: string[] = [];
  for (const [name, value] of new FormData(form)) {
    const text = typeof value === "string" ? value : value.name;
    if (text.trim() !== "") filled.push(`${name}=${text}`);
  }
  return JSON.stringify(filled.sort());
}

/**
 * Escape never discards typing: closing a form (Escape, Cancel) whose fields differ from what it
 * opened with asks `Discard changes?` (`Keep editing`, `Discard`) first; an untouched form closes
 * at once. `form` is the form's ref (`formRef` when given); `requestClose` is what Escape and
 * Cancel call; `question` is rendered with the form, whose own Escape handler must leave the keys
 * pressed inside the question to it.
 */
export function useDiscardChanges(close: () => void, formRef?: RefObject<HTMLFormElement | null>) {
  const ownRef = useRef<HTMLFormElement>(null);
  const form = formRef ?? ownRef;
  const opened = useRef<string | null>(null);
  // Which question this is (0: none). A question closed by Escape says so in its `close` event, a
  // task later; an Escape on the form before then asks again with a new question (a new key),
  // rather than being taken by the closing one and lost.
  const [asking, setAsking] = useState(0);
  useEffect(() => {
    opened.current = snapshot(form.current);
  }, [form]);
  const changed = () => opened.current !== null && snapshot(form.current) !== opened.current;
  const requestClose = () => (changed() ? setAsking((n) => n + 1) : close());
  const question = asking ? (
    <DiscardChangesDialog
      key={asking}
      onKeep={() => setAsking(0)}
      onDiscard={() => {
        setAsking(0);
        close();
      }}
    />
  ) : null;
  return { form, requestClose, question };
}

function DiscardChangesDialog({ onKeep, onDiscard }: { onKeep: () => void; onDiscard: () => void }) {
  return (
    <Modal role="alertdialog" labelledBy="discard-changes-title" describedBy="discard-changes-body" onClose={onKeep}>
      <div className="space-y-4 p-6">
        <h2 id="discard-changes-title" className="text-lg font-semibold">
          Discard changes?
        </h2>
        <p id="discard-changes-body" className="text-sm text-slate-700">
          What you typed or chose in this form has not been saved. Discarding closes the form and loses it.
        </p>
        <div className="flex flex-wrap justify-end gap-2">
          {/* biome-ignore lint/a11y/noAutofocus: in a modal dialog, focus starts on the safe choice */}
          <button type="button" autoFocus onClick={onKeep} className={buttonClass("primary")}>
            Keep editing
          </button>
          <button type="button" onClick={onDiscard} className={buttonClass("danger")}>
            Discard
          </button>
        </div>
      </div>
    </Modal>
  );
}
