// The part of node-oidc-provider's API the bench's peer uses (the package ships no types).
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export type AdapterPayload = Record<string, unknown> & {
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: unknown;
  };
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  interface Configuration {
    adapter: new (name: string) => Adapter;
    clients: Record<string, unknown>[];
    findAccount(ctx: unknown, sub: string): Promise<Account | undefined>;
    rotateRefreshToken: boolean;
    ttl: Record<string, number>;
    features: Record<string, { enabled: boolean }>;
    enabledJWA?: Record<string, string[]>;
    clockTolerance?: number;
  }
  interface Client {
    clientId: string;
  }
  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  class RefreshToken {
    constructor(properties: { accountId: string; client: Client; grantId: string; scope: string; gty: string });
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Client: { find(id: string): Promise<Client | undefined> };
    Grant: typeof Grant;
    RefreshToken: typeof RefreshToken;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
