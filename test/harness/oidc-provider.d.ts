// Minimal types of oidc-provider as the test IdP uses it (the package ships none).
declare module 'oidc-provider' {
  import type { Server } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & {
      findAccount?: (ctx: unknown, id: string) => Promise<{ accountId: string; claims: () => Promise<{ sub: string }> }>;
    });
    listen(port: number, host: string, cb: () => void): Server;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
