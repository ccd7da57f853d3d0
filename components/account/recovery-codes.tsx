"use client";

import { CopyButton } from "@/components/ui/copy-button";
import { buttonClass } from "@/components/ui/submit-button";

/** Ten recovery codes, shown once: one per line, with `Copy` and `Download`. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  const text = codes.join("\n");
  return (
    <div className="space-y-3 rounded-md bg-amber-50 p-4 ring-1 ring-amber-200">
      <p className="text-sm text-amber-900">
        Save these recovery codes somewhere safe, such as a password manager. Each one signs you in once if you lose
        your authenticator app or passkey. They will not be shown again.
      </p>
      <pre
        data-testid="recovery-codes"
        className="overflow-x-auto rounded bg-surface p-3 font-mono text-sm leading-6 text-slate-900 ring-1 ring-slate-200"
      >
        {text}
      </pre>
      <div className="flex flex-wrap gap-2">
        <CopyButton value={text} />
        <a
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(`${text}\n`)}`}
          download="recovery-codes.txt"
          className={buttonClass("secondary")}
        >
          Download
        </a>
      </div>
    </div>
  );
}
