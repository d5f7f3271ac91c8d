/**
 * `hiring-admin company connect|disconnect|entitle|set-status` and `jobs sync`: a company's ATS connection,
 * entitlements and lifecycle (issue 9, D17, D18). The domain does the work (delivery/ats-connections.ts,
 * companies/companies.ts, delivery/job-import.ts); this module maps flags to its inputs and its field names
 * back to flags.
 */
import type { Command } from 'commander';
import { id, text } from './arguments.js';
import type { Session } from './context.js';

/** The credential flags, by the field name the connectors use. */
const CREDENTIAL_FLAGS = {
  subdomain: '--subdomain',
  personio_company_id: '--personio-company-id',
  token: '--token',
  board_token: '--board-token',
  api_key: '--api-key',
  site: '--site',
  ats: '--ats',
} as const;

interface ConnectOptions {
  ats: string;
  subdomain?: string;
  personioCompanyId?: string;
  token?: string;
  boardToken?: string;
  apiKey?: string;
  site?: string;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** A domain error's field names as the flags the operator typed. */
async function withFlagNames<T>(work: () => Promise<T>, names: Record<string, string>): Promise<T> {
  const { ApiError } = await import('#platform/errors.js');
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError) || !error.errors) throw error;
    const renamed = Object.fromEntries(Object.entries(error.errors).map(([field, messages]) => [names[field] ?? field, messages]));
    throw new ApiError(error.statusCode, error.code, error.detail, renamed, error.headers);
  }
}

/** Adds its commands to the `company` and `jobs` groups, which companies.ts and jobs.ts create. */
export function connectionCommands(program: Command, session: Session): void {
  const group = (name: string) => {
    const found = program.commands.find((c) => c.name() === name);
    if (!found) throw new Error(`the ${name} group must be added before the connection commands`);
    return found;
  };
  const company = group('company');
  const jobs = group('jobs');
  company
    .command('connect')
    .description("Connect a company to its ATS: the credentials are checked with the ATS's cheapest call, then stored encrypted.")
    .argument('<COMPANY_ID>', 'The company.', id)
    .requiredOption('--ats <SLUG>', 'personio, greenhouse, lever (or sandbox).', text)
    .option('--subdomain <SUBDOMAIN>', 'Personio: the career-site subdomain ({subdomain}.jobs.personio.de).', text)
    .option('--personio-company-id <ID>', "Personio: the company's id (X-Company-ID).", text)
    .option('--token <TOKEN>', 'Personio: the Recruiting API token.', text)
    .option('--board-token <TOKEN>', "Greenhouse: the job board's token.", text)
    .option('--site <SITE>', "Lever: the postings site's name.", text)
    .option('--api-key <KEY>', 'Greenhouse or Lever: the API key for applications.', text)
    .addHelpText(
      'after',
      [
        '',
        'On success prints the Company object (ats, ats_name, status "active"); on failure a D2 error naming what',
        'failed, and nothing is saved. What each check proves: docs/connectors/<ats>.md. Credentials are never',
        'printed, logged or returned by the API.',
      ].join('\n'),
    )
    .action(
      session.action(async (companyId: number, options: ConnectOptions) => {
        const { connectCompany } = await import('#delivery/ats-connections.js');
        const input: Record<string, string> = Object.create(null) as Record<string, string>;
        const given: [keyof typeof CREDENTIAL_FLAGS, string | undefined][] = [
          ['subdomain', options.subdomain],
          ['personio_company_id', options.personioCompanyId],
          ['token', options.token],
          ['board_token', options.boardToken],
          ['api_key', options.apiKey],
          ['site', options.site],
        ];
        for (const [field, value] of given) if (value !== undefined) input[field] = value;
        return withFlagNames(() => connectCompany(companyId, options.ats, input), CREDENTIAL_FLAGS);
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
    .description('Add or remove entitlements: job_sync, candidate_sync, email_fallback, apply:<channel> (an apply channel).')
    .argument('<COMPANY_ID>', 'The company.', id)
    .option('--add <LIST>', 'Comma-separated entitlements to add.', text)
    .option('--remove <LIST>', 'Comma-separated entitlements to remove.', text)
    .addHelpText('after', '\nPrints the Company object.')
    .action(
      session.action(async (companyId: number, options: { add?: string; remove?: string }) => {
        const { setEntitlements } = await import('#companies/companies.js');
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
        const { setCompanyStatus } = await import('#companies/companies.js');
        return withFlagNames(() => setCompanyStatus(companyId, status), { status: 'STATUS' });
      }),
    );

  jobs
    .command('sync')
    .description("Run one job import from the company's ATS now, as the schedule does.")
    .requiredOption('--company <COMPANY_ID>', 'The company.', id)
    .addHelpText('after', '\nPrints {"run_id", "created", "updated", "unchanged", "archived"}.')
    .action(
      session.action(async (options: { company: number }) => {
        const { runJobImport } = await import('#delivery/job-import.js');
        return runJobImport(options.company);
      }),
    );
}
