/**
 * `hiring-admin company connect|status|disconnect|entitle|set-status` and `jobs sync`: a company's ATS connection,
 * entitlements and lifecycle (issue 9, D17, D18). The domain does the work (delivery/ats-connections.ts,
 * companies/company-store.ts, delivery/job-import.ts); this module maps flags to its inputs and its field names
 * back to flags.
 */
import type { Command } from 'commander';
import type { ConnectorDescriptor } from '#delivery/connectors/connector.js';
import { connectFlags, connectors } from '#delivery/connectors/registry.js';
import { id, text } from './arguments.js';
import { publicBaseUrl } from './companies.js';
import type { Session } from './context.js';
import { withFlagNames } from './output.js';
import { withProgress } from './progress.js';

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** Adds its commands to the `company` and `jobs` groups, which companies.ts and jobs.ts create. */
export function connectionCommands(program: Command, session: Session, registry: readonly ConnectorDescriptor[] = connectors): void {
  const group = (name: string) => {
    const found = program.commands.find((c) => c.name() === name);
    if (!found) throw new Error(`the ${name} group must be added before the connection commands`);
    return found;
  };
  const company = group('company');
  const jobs = group('jobs');
  // The credential flags come from the connector registry: one per flag, with every ATS that takes it.
  const flags = connectFlags(registry);
  const connect = company
    .command('connect')
    .description("Connect a company to its ATS: the credentials are checked with the ATS's cheapest call, then stored encrypted.")
    .argument('<COMPANY_ID>', 'The company.', id)
    .requiredOption('--ats <SLUG>', `${registry.map((c) => c.slug).join(', ')}.`, text);
  for (const flag of flags) {
    const help = flag.uses.map((u) => `${u.name}: ${u.field.description}${u.field.default ? ` (default ${u.field.default})` : ''}`);
    connect.option(`${flag.flag} <${flag.field.toUpperCase()}>`, `${help.join('; ')}.`, text);
  }
  connect
    .addHelpText(
      'after',
      [
        '',
        'On success prints the Company object (ats, ats_name, status "active") with `credentials_check`: the call',
        'made, what it proved and what it could not, and `outcomes`: whether outcomes are tracked, how or why not.',
        'On failure a D2 error naming what failed, and nothing is saved.',
        'For an ATS that reports outcomes by signed webhooks (greenhouse, lever) also `ats_webhook`: the URL to add in the',
        'ATS and, for Greenhouse, the secret key to enter there (P310); for Lever, connect again with',
        '--webhook-signature-tokens once its webhooks exist. For Recruitee, the optional --api-token (a personal API',
        'token of its ATS API) has outcomes read; without it they are not tracked (P351).',
        'Details: docs/connectors/<ats>.md. Credentials are never printed, logged or returned by the API.',
      ].join('\n'),
    )
    .action(
      session.action(async (companyId: number, options: Record<string, string | undefined> & { ats: string }) => {
        const { connectRecord, credentialsCheckOf, outcomeStatusOf } = await import('#delivery/ats-connections.js');
        const { toCompany } = await import('#companies/company-schema.js');
        const input: Record<string, string> = Object.create(null) as Record<string, string>;
        for (const flag of flags) {
          const value = Object.hasOwn(options, flag.key) ? options[flag.key] : undefined;
          if (value !== undefined) input[flag.field] = value;
        }
        const names: Record<string, string> = Object.create(null) as Record<string, string>;
        for (const flag of flags) names[flag.field] = flag.flag;
        names.ats = '--ats';
        const record = await withFlagNames(() => connectRecord(companyId, options.ats, input), names);
        // P310: an ATS that tells outcomes by signed webhooks: the URL (and our secret) to paste into it.
        const { atsWebhookSetup } = await import('#delivery/ats-webhooks.js');
        const webhook = await atsWebhookSetup({ id: companyId, ats: options.ats }, await publicBaseUrl(session));
        // P323: whether outcomes are tracked, how, or why not (a fresh connection resumes paused readings, P322), as the
        // new connection has it (P351: an optional credential given or not).
        const outcomes = outcomeStatusOf(record);
        return { ...toCompany(record), credentials_check: credentialsCheckOf(options.ats) ?? null, outcomes, ats_webhook: webhook ?? null };
      }),
    );

  company
    .command('status')
    .description("Show a company's ATS connection: connected or not, since when, and whether outcomes are tracked, how or why not.")
    .argument('<COMPANY_ID>', 'The company.', id)
    .addHelpText(
      'after',
      [
        '',
        'Prints {id, status, ats, ats_name, connected, connected_at, outcomes}. `outcomes.tracked` is reading, webhook,',
        'none (with the reason and what the vendor offers) or paused: the ATS rejected the credentials for reading',
        'outcomes (P322); `company connect` with new credentials resumes them.',
      ].join('\n'),
    )
    .action(
      session.action(async (companyId: number) => {
        const { connectionStatus } = await import('#delivery/ats-connections.js');
        return connectionStatus(companyId);
      }),
    );

  company
    .command('disconnect')
    .description('Remove the ATS credentials of a company; its syncs and imports stop until it is connected again.')
    .argument('<COMPANY_ID>', 'The company.', id)
    .addHelpText('after', '\nPrints the Company object.')
    .action(
      session.action(async (companyId: number) => {
        const { disconnectCompany } = await import('#delivery/ats-connections.js');
        return disconnectCompany(companyId);
      }),
    );

  company
    .command('entitle')
    .description(
      'Add or remove entitlements: job_sync, candidate_sync, email_fallback, external_apply, apply:<channel> (an apply channel).',
    )
    .argument('<COMPANY_ID>', 'The company.', id)
    .option('--add <LIST>', 'Comma-separated entitlements to add.', text)
    .option('--remove <LIST>', 'Comma-separated entitlements to remove.', text)
    .addHelpText('after', '\nPrints the Company object.')
    .action(
      session.action(async (companyId: number, options: { add?: string; remove?: string }) => {
        const { setEntitlements } = await import('#companies/company-store.js');
        return withFlagNames(() => setEntitlements(companyId, list(options.add), list(options.remove)), {
          add: '--add',
          remove: '--remove',
        });
      }),
    );

  company
    .command('set-status')
    .description('Set the lifecycle status: invited, requested, active, failing, deactivated or deleted (D17).')
    .argument('<COMPANY_ID>', 'The company.', id)
    .argument('<STATUS>', 'The new status.', text)
    .addHelpText('after', '\nPrints the Company object.')
    .action(
      session.action(async (companyId: number, status: string) => {
        const { setCompanyStatus } = await import('#companies/company-store.js');
        return withFlagNames(() => setCompanyStatus(companyId, status), { status: 'STATUS' });
      }),
    );

  jobs
    .command('sync')
    .description("Run one job import from the company's ATS now, as the schedule does.")
    .requiredOption('--company <COMPANY_ID>', 'The company.', id)
    .addHelpText(
      'after',
      '\nPrints {"run_id", "created", "updated", "unchanged", "archived"}. On a terminal a progress bar on stderr shows the\n' +
        'jobs written once the ATS has answered; piped or redirected, nothing but the JSON is written.',
    )
    .action(
      session.action(async (options: { company: number }) => {
        const { runJobImport } = await import('#delivery/job-import.js');
        return withProgress('Writing jobs', (onProgress) => runJobImport(options.company, { onProgress }));
      }),
    );
}
