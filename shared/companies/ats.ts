/**
 * The ATS integrations a company can be linked to (its `ats` slug), as the connector registry
 * (shared/delivery/connectors/registry.ts) declares them, read from the module it generates, since this
 * layer sits below the connectors. `sandbox` needs no credentials and is always connected; a connector with
 * credential fields counts as connected once credentials for that same ATS have been checked and stored
 * (`hiring-admin company connect`, D15/D18); an integration without a connector is never connected.
 */
import { ATS_INTEGRATIONS } from '#generated/companies-ats-integrations.js';

export interface AtsIntegration {
  slug: string;
  name: string;
  /** A connector exists for it (shared/delivery/connectors). */
  connector: boolean;
  /** A company needs stored credentials before its syncs are active. */
  credentials: boolean;
}

export const atsIntegrations: readonly AtsIntegration[] = ATS_INTEGRATIONS;

export const atsSlugs = atsIntegrations.map((a) => a.slug);

export function atsBySlug(slug: string | null | undefined): AtsIntegration | undefined {
  return atsIntegrations.find((a) => a.slug === slug);
}
