/** Connectors by ATS slug (see shared/companies/ats.ts for the integrations list). */
import type { AtsConnector } from '#delivery/connectors/connector.js';
import { greenhouseConnector } from '#delivery/connectors/greenhouse.js';
import { leverConnector } from '#delivery/connectors/lever.js';
import { personioConnector } from '#delivery/connectors/personio.js';
import { sandboxConnector } from '#delivery/connectors/sandbox.js';

const connectors: readonly AtsConnector[] = [sandboxConnector, personioConnector, greenhouseConnector, leverConnector];

export function connectorFor(ats: string | null | undefined): AtsConnector | undefined {
  return connectors.find((c) => c.slug === ats);
}
