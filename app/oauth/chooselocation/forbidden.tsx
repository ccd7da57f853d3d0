import { headers } from "next/headers";
import { ErrorScreen } from "@/components/oauth/error-screen";
import { getActor } from "@/lib/auth/session";
import { installChoiceFor } from "@/lib/oauth/authorize/install-choice";
import { authorizeParamsFrom } from "@/lib/oauth/authorize/params";
import { validateAuthorizeRequest } from "@/lib/oauth/authorize/validate";

const generic = {
  title: "You can't install this app",
  message: "Agency-only apps can be installed by agency owners and admins only. Ask one of them to install it.",
};

/** The install screen's 403: works out again which rule refused, to say so. */
export default async function InstallForbidden() {
  const path = (await headers()).get("x-pathname") ?? "";
  const search = new URLSearchParams(path.split("?")[1] ?? "");
  let reason = generic;
  const actor = await getActor();
  const check = await validateAuthorizeRequest(authorizeParamsFrom(Object.fromEntries(search)));
  if (actor && check.ok) {
    const choice = await installChoiceFor(actor, check.request.app);
    if (!choice.allowed) reason = { title: choice.title, message: choice.message };
  }
  return <ErrorScreen status={403} title={reason.title} message={reason.message} />;
}
