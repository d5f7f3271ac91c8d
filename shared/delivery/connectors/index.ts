/** Connectors by ATS slug. Only the sandbox exists so far (see shared/ats.ts for the integrations list). */
import type { AtsConnector } from '#delivery/connectors/connector.js';
import { sandboxConnector } from '#delivery/connectors/sandbox.js';

const connectors: Record<string, AtsConnector> = { sandbox: sandboxConnector };

export function connectorFor(ats: string | null | undefined): AtsConnector | undefined {
  return ats ? connectors[ats] : undefined;
}
