import type { CliCommand } from "./command";
import { appCreate } from "./commands/app-create";
import { appRotateSecret } from "./commands/app-rotate-secret";
import { companyCreate } from "./commands/company-create";
import { labsSet } from "./commands/labs-set";
import { locationCreate } from "./commands/location-create";
import { signingKeyRotate } from "./commands/signing-key-rotate";
import { userCreate } from "./commands/user-create";
import { userReset2fa } from "./commands/user-reset-2fa";
import { userSetPassword } from "./commands/user-set-password";
import { webhookKeyRotate } from "./commands/webhook-key-rotate";

/** The operator CLI's commands (SPEC.md, Operator CLI). */
export const commands: Record<string, CliCommand> = {
  "company:create": companyCreate,
  "location:create": locationCreate,
  "user:create": userCreate,
  "user:set-password": userSetPassword,
  "user:reset-2fa": userReset2fa,
  "labs:set": labsSet,
  "app:create": appCreate,
  "app:rotate-secret": appRotateSecret,
  "signing-key:rotate": signingKeyRotate,
  "webhook-key:rotate": webhookKeyRotate,
};
