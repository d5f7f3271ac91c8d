/**
 * The connector registry (issue 24): every ATS we connect, each declared by its own module (slug, name,
 * credential fields with their CLI flags, base-URL settings, pacing, what its credentials check proves,
 * attachment limits). Everything that lists ATSs derives from this one array: the `ats` values and
 * `ats_name` (through shared/generated/companies-ats-integrations.ts, which companies read), the admin CLI's
 * `company connect` flags, the connect page's form, the README's ATS table and the stack's settings.
 * Adding a connector: its module, its simulator (test/simulators), its document (docs/connectors) and one
 * line here.
 */
import type { AtsConnector, CredentialField } from '#delivery/connectors/connector.js';
import { ashbyConnector } from '#delivery/connectors/ashby.js';
import { greenhouseConnector } from '#delivery/connectors/greenhouse.js';
import { leverConnector } from '#delivery/connectors/lever.js';
import { personioConnector } from '#delivery/connectors/personio.js';
import { recruiteeConnector } from '#delivery/connectors/recruitee.js';
import { sandboxConnector } from '#delivery/connectors/sandbox.js';
import { smartrecruitersConnector } from '#delivery/connectors/smartrecruiters.js';
import { teamtailorConnector } from '#delivery/connectors/teamtailor.js';
import { workableConnector } from '#delivery/connectors/workable.js';

// prettier-ignore
export const connectors: readonly AtsConnector[] = [
  sandboxConnector,
  greenhouseConnector,
  leverConnector,
  personioConnector,
  smartrecruitersConnector,
  workableConnector,
  recruiteeConnector,
  teamtailorConnector,
  ashbyConnector,
];

/**
 * ATSs a company may name (`ats`) and ask for on the connect page, that we do not connect yet: their
 * companies are never connected (D15). Owned here so that the `ats` values have one source.
 */
export const requestableIntegrations: readonly { slug: string; name: string }[] = [{ slug: 'workday', name: 'Workday' }];

export function connectorFor(ats: string | null | undefined, registry: readonly AtsConnector[] = connectors): AtsConnector | undefined {
  return registry.find((c) => c.slug === ats);
}

/** One credential flag of `company connect`, with every connector that takes it. */
export interface ConnectFlag {
  flag: string;
  field: string;
  /** Commander's camelCase option key. */
  key: string;
  uses: { ats: string; name: string; field: CredentialField }[];
}

/**
 * The credential flags of `hiring-admin company connect`, in registry order, one per flag. A flag two
 * connectors share must name the same field (a registry test holds this).
 */
export function connectFlags(registry: readonly AtsConnector[] = connectors): ConnectFlag[] {
  const flags = new Map<string, ConnectFlag>();
  for (const connector of registry) {
    for (const field of connector.credentialFields) {
      const key = field.flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
      const known = flags.get(field.flag) ?? { flag: field.flag, field: field.name, key, uses: [] };
      if (known.field !== field.name) throw new Error(`${field.flag} names ${known.field} and ${field.name}`);
      known.uses.push({ ats: connector.slug, name: connector.name, field });
      flags.set(field.flag, known);
    }
  }
  return [...flags.values()];
}

/** The integrations companies know (`ats` values and `ats_name`): connectors first, then requestable ones. */
export function atsIntegrationList(registry: readonly AtsConnector[] = connectors) {
  return [
    ...registry.map((c) => ({ slug: c.slug, name: c.name, connector: true, credentials: c.credentialFields.length > 0 })),
    ...requestableIntegrations.map((r) => ({ slug: r.slug, name: r.name, connector: false, credentials: true })),
  ];
}

/** Every base-URL setting of every connector: the stack's context values and the local runtime's pass-through. */
export function connectorSettings(registry: readonly AtsConnector[] = connectors) {
  return registry.flatMap((c) => c.settings.map((s) => ({ ats: c.slug, ...s })));
}

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The README's ATS table (between the `ats-table` markers), written by `npm run openapi`. */
export function atsTableMarkdown(registry: readonly AtsConnector[] = connectors): string {
  const rows = registry.map((c) => {
    const flags = c.credentialFields.map((f) => `\`${f.flag} ${f.name.toUpperCase()}\`${f.default !== undefined ? ' (optional)' : ''}`);
    const settings = c.settings.map((s) => `\`${s.env}\``).join(', ') || '—';
    const check = `${c.check.proves}${c.check.doesNotProve ? ` Not proved: ${c.check.doesNotProve}` : ''}`;
    return `| ${c.name} (\`${c.slug}\`) | ${flags.join(' ') || 'nothing'} | ${settings} | ${escapeCell(check)} | [docs](docs/connectors/${c.slug}.md) |`;
  });
  return [
    '| ATS | `company connect --ats SLUG` needs | Base URL settings | What its check proves |  |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
