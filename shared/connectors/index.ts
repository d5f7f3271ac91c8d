/** Connectors by ATS slug. Only the sandbox exists so far (see shared/ats.ts for the integrations list). */
import type { AtsConnector } from './connector.js';
import { sandboxConnector } from './sandbox.js';

const connectors: Record<string, AtsConnector> = { sandbox: sandboxConnector };

export function connectorFor(ats: string | null | undefined): AtsConnector | undefined {
  return ats ? connectors[ats] : undefined;
}
