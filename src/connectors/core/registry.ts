import type { Connector, ConnectorCapabilities } from './connector.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * The connectors this deployment runs, and which environment may use which. Sandbox keys only
 * ever reach simulator connectors; production keys reach the connectors an operator listed in
 * PRODUCTION_CONNECTORS (none by default: Tributary ships no real provider yet).
 */
export class ConnectorRegistry {
  readonly #byName = new Map<string, Connector>();
  readonly #production: ReadonlySet<string>;

  constructor(connectors: readonly Connector[], productionConnectors: readonly string[]) {
    for (const c of connectors) {
      const name = c.capabilities.connector;
      if (this.#byName.has(name)) throw new Error(`duplicate connector ${name}`);
      this.#byName.set(name, c);
    }
    for (const name of productionConnectors) {
      if (!this.#byName.has(name)) throw new Error(`PRODUCTION_CONNECTORS names an unknown connector: ${name}`);
    }
    this.#production = new Set(productionConnectors);
  }

  get(name: string): Connector | undefined {
    return this.#byName.get(name);
  }

  /** Every registered connector, in registration order (the settlement ingestion walks them). */
  all(): Connector[] {
    return [...this.#byName.values()];
  }

  /** Capabilities of the connectors usable in `environment`, in registration order. */
  enabledFor(environment: Environment): ConnectorCapabilities[] {
    const out: ConnectorCapabilities[] = [];
    for (const c of this.#byName.values()) {
      const allowed = environment === 'sandbox' ? c.capabilities.simulator : this.#production.has(c.capabilities.connector);
      if (allowed) out.push(c.capabilities);
    }
    return out;
  }
}
