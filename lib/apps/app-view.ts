import type { InstallSetting, Prisma } from "@/lib/generated/prisma/client";
import { isScope, type Scope } from "@/lib/scopes";

/** Everything about an app except its secret hash. */
export const appSelect = {
  id: true,
  companyId: true,
  name: true,
  description: true,
  clientId: true,
  clientSecretHint: true,
  redirectUris: true,
  scopes: true,
  installSetting: true,
  webhookUrl: true,
  createdAt: true,
  updatedAt: true,
  versions: {
    orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }],
    take: 1,
    select: { id: true as const },
  },
} satisfies Prisma.AppSelect;

export interface AppView {
  id: string;
  companyId: string;
  name: string;
  description: string;
  clientId: string;
  clientSecretHint: string;
  redirectUris: string[];
  scopes: Scope[];
  installSetting: InstallSetting;
  webhookUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** The current (newest) version; tokens carry it as versionId. */
  versionId: string;
}

export type AppRow = {
  versions: { id: string }[];
  scopes: string[];
} & Omit<AppView, "versionId" | "scopes">;

export function toAppView(row: AppRow): AppView {
  const { versions, ...rest } = row;
  return { ...rest, scopes: rest.scopes.filter(isScope), versionId: versions[0]?.id ?? "" };
}
