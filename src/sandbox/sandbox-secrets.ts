import { createHmac } from 'node:crypto';

/**
 * The credentials shared by a sandbox provider and its connector: the API key the connector
 * presents and the secret the provider signs notifications with. Both sides derive them from one
 * master secret (the deployment secret in the embedded default, SANDBOX_PROVIDER_SECRET when the
 * providers run as their own process), so nothing has to be copied by hand. The prefixes let
 * `redactSecrets` recognise them in any log line.
 */
export interface SandboxCredentials {
  apiKey: string;
  webhookSecret: string;
}

export function sandboxCredentials(masterSecret: string, connector: string): SandboxCredentials {
  const derive = (purpose: string) => createHmac('sha256', masterSecret).update(`sandbox:${purpose}:${connector}`).digest('hex');
  return { apiKey: `sbx_sk_${derive('api-key')}`, webhookSecret: `sbx_whsec_${derive('webhook')}` };
}
