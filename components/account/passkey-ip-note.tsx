"use client";

import { useEffect, useState } from "react";
import { isIpAddressHost } from "@/lib/auth/two-factor/ip-host";

/**
 * Browsers offer no passkeys on an IP-address origin (WebAuthn needs a domain): said where passkeys
 * are offered when this page, or the server's own address (APP_URL), is one. The page's address is
 * read after hydration, so server and client markup agree.
 */
export function PasskeyIpNote({ appOrigin }: { appOrigin: string }) {
  const appIsIp = isIpAddressHost(new URL(appOrigin).hostname);
  const [pageHref, setPageHref] = useState<string>();
  useEffect(() => {
    if (isIpAddressHost(window.location.hostname)) setPageHref(`${appOrigin}${window.location.pathname}`);
  }, [appOrigin]);
  if (!appIsIp && !pageHref) return null;
  return (
    <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
      Browsers offer no passkeys on an IP-address origin such as this one.{" "}
      {appIsIp ? (
        <>
          This server's address ({appOrigin}) is one: serve it under a host name, such as http://localhost:3000, to use
          passkeys.
        </>
      ) : (
        <>
          Open this page via{" "}
          <a href={pageHref} className="font-medium underline">
            {appOrigin}
          </a>{" "}
          to use passkeys.
        </>
      )}
    </p>
  );
}
