/**
 * The connector registry (issue 24): every ATS we connect, each declared by its own descriptor
 * (`<ats>-descriptor.ts`: slug, name, credential fields with their CLI flags, base-URL settings, pacing, what
 * its credentials check proves, attachment limits). Everything that lists ATSs derives from this one array:
 * the `ats` values and `ats_name` (through shared/generated/companies-ats-integrations.ts, which companies
 * read), the admin CLI's `company connect` flags, the connect page's form, the README's ATS table and the
 * stack's settings.
 *
 * A connector loads only itself (issue 41 item 5, P283): the descriptors import nothing but types, and the
 * connector module itself (its calls, mapping and dependencies) is imported only here, only by dynamic
 * import, when `loadConnector` is asked for that ATS. Bundled with code splitting, each connector is a chunk
 * of its own that a function loads on its first call for a company of that ATS, so adding a connector grows
 * no other connector's function (test/cdk/bundle-budgets.ts, .dependency-cruiser.cjs).
 * Adding a connector: its module and descriptor, its simulator (test/simulators), its document
 * (docs/connectors) and one line here.
 */
import type { AtsConnector, ConnectorDescriptor, CredentialField } from '#delivery/connectors/connector.js';
import { ashbyDescriptor } from '#delivery/connectors/ashby-descriptor.js';
import { greenhouseDescriptor } from '#delivery/connectors/greenhouse-descriptor.js';
import { leverDescriptor } from '#delivery/connectors/lever-descriptor.js';
import { personioDescriptor } from '#delivery/connectors/personio-descriptor.js';
import { recruiteeDescriptor } from '#delivery/connectors/recruitee-descriptor.js';
import { sandboxDescriptor } from '#delivery/connectors/sandbox-descriptor.js';
import { smartrecruitersDescriptor } from '#delivery/connectors/smartrecruiters-descriptor.js';
import { teamtailorDescriptor } from '#delivery/connectors/teamtailor-descriptor.js';
import { workableDescriptor } from '#delivery/connectors/workable-descriptor.js';

/** A descriptor with the loader of its connector: a literal `import()`, so that the bundler makes it a chunk. */
interface RegistryEntry {
  descriptor: ConnectorDescriptor;
  load: () => Promise<AtsConnector>;
}

// prettier-ignore
const entries: readonly RegistryEntry[] = [
  { descriptor: sandboxDescriptor, load: async () => (await import('#delivery/connectors/sandbox.js')).sandboxConnector },
  { descriptor: greenhouseDescriptor, load: async () => (await import('#delivery/connectors/greenhouse.js')).greenhouseConnector },
  { descriptor: leverDescriptor, load: async () => (await import('#delivery/connectors/lever.js')).leverConnector },
  { descriptor: personioDescriptor, load: async () => (await import('#delivery/connectors/personio.js')).personioConnector },
  { descriptor: smartrecruitersDescriptor, load: async () => (await import('#delivery/connectors/smartrecruiters.js')).smartrecruitersConnector },
  { descriptor: workableDescriptor, load: async () => (await import('#delivery/connectors/workable.js')).workableConnector },
  { descriptor: recruiteeDescriptor, load: async () => (await import('#delivery/connectors/recruitee.js')).recruiteeConnector },
  { descriptor: teamtailorDescriptor, load: async () => (await import('#delivery/connectors/teamtailor.js')).teamtailorConnector },
  { descriptor: ashbyDescriptor, load: async () => (await import('#delivery/connectors/ashby.js')).ashbyConnector },
];

/** Every connector's descriptor, in registry order: what everything that lists ATSs reads. */
export const connectors: readonly ConnectorDescriptor[] = entries.map((e) => e.descriptor);

/**
 * ATSs a company may name (`ats`) and ask for on the connect page, that we do not connect yet: their
 * companies are never connected (D15). Owned here so that the `ats` values have one source.
 */
export const requestableIntegrations: readonly { slug: string; name: string }[] = [{ slug: 'workday', name: 'Workday' }];

/** The descriptor of a connected ATS (what it is, not its calls: see `loadConnector`). */
export function connectorFor(
  ats: string | null | undefined,
  registry: readonly ConnectorDescriptor[] = connectors,
): ConnectorDescriptor | undefined {
  return registry.find((c) => c.slug === ats);
}

/**
 * The connector of an ATS, with its calls: its module is imported on the first call for that ATS (a chunk of
 * its own in a bundle) and cached by the module system from then on. `undefined` for an ATS without connector.
 */
export async function loadConnector(ats: string | null | undefined): Promise<AtsConnector | undefined> {
  return entries.find((e) => e.descriptor.slug === ats)?.load();
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
export function connectFlags(registry: readonly ConnectorDescriptor[] = connectors): ConnectFlag[] {
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
export function atsIntegrationList(registry: readonly ConnectorDescriptor[] = connectors) {
  return [
    ...registry.map((c) => ({ slug: c.slug, name: c.name, connector: true, credentials: c.credentialFields.length > 0 })),
    ...requestableIntegrations.map((r) => ({ slug: r.slug, name: r.name, connector: false, credentials: true })),
  ];
}

/** Every base-URL setting of every connector: the stack's context values and the local runtime's pass-through. */
export function connectorSettings(registry: readonly ConnectorDescriptor[] = connectors) {
  return registry.flatMap((c) => c.settings.map((s) => ({ ats: c.slug, ...s })));
}

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The README's ATS table (between the `ats-table` markers), written by `npm run openapi`. */
export function atsTableMarkdown(registry: readonly ConnectorDescriptor[] = connectors): string {
  const rows = registry.map((c) => {
    const flags = c.credentialFields.map((f) => `\`${f.flag} ${f.name.toUpperCase()}\`${f.default !== undefined ? ' (optional)' : ''}`);
    const settings = c.settings.map((s) => `\`${s.env}\``).join(', ') || '—';
    const check = `${c.check.proves}${c.check.doesNotProve ? ` Not proved: ${c.check.doesNotProve}` : ''}`;
    // D21 (issue 43): how the ATS tells what became of an application; the reason of a `none` is in its document.
    const outcomes =
      c.outcomes.by === 'reading'
        ? `read: \`${c.outcomes.call.replace(/ \(.*$/, '').replace(/ on the .*$/, '')}\`${c.outcomes.needs ? ` with the optional \`${c.outcomes.needs.field}\`, else not tracked` : ''}`
        : c.outcomes.by === 'webhook'
          ? 'its signed webhooks'
          : 'not tracked (see its docs)';
    return `| ${c.name} (\`${c.slug}\`) | ${flags.join(' ') || 'nothing'} | ${settings} | ${escapeCell(check)} | ${escapeCell(outcomes)} | [docs](docs/connectors/${c.slug}.md) |`;
  });
  return [
    '| ATS | `company connect --ats SLUG` needs | Base URL settings | What its check proves | Outcomes (D21) |  |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
