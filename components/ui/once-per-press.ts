"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { answerLost } from "@/components/private-integrations/confirm-dialog";
import { newIdempotencyKey } from "@/components/private-integrations/idempotency-key";
import type { FormAction } from "@/components/private-integrations/types";

/**
 * A form whose button makes something shown once (a secret, a key pair, recovery codes) sends an
 * idempotency key, one per press, kept until an answer arrives or the dialog is opened again: after
 * a lost answer, pressing again gets the first answer back and nothing is made twice
 * (lib/idempotency/keys.ts). A lost answer is said in the form, never as an error page.
 *
 * `press` says what to do after a lost answer ("Press Confirm again"), `made` what comes back.
 */
export function useOncePerPress(action: FormAction, press: string, made: string) {
  const [key, setKey] = useState(newIdempotencyKey);
  const sent = useMemo<FormAction>(
    () => async (prev, form) => {
      form.set("idempotencyKey", key);
      try {
        return await action(prev, form);
      } catch {
        return { error: answerLost(press, made) };
      }
    },
    [action, key, press, made],
  );
  const renew = useCallback(() => setKey(newIdempotencyKey()), []);
  return { action: sent, key, renew };
}

/**
 * Once the answer to `key` is on screen, the server forgets it (`forgetShownAnswerAction`), so what
 * it made lives on only where the person puts it. Said once per key; a failure changes nothing
 * here (the answer is then pruned after 24 hours).
 */
export function useForgetWhenShown(forget: FormAction | undefined, key: string, shown: boolean): void {
  const said = useRef<string>(undefined);
  useEffect(() => {
    if (!shown || !forget || said.current === key) return;
    said.current = key;
    const form = new FormData();
    form.set("idempotencyKey", key);
    forget({}, form).catch(() => undefined);
  }, [forget, key, shown]);
}
