/** `hiring-admin company ...`: companies of a partner. */
import type { Command } from 'commander';
import type { NewCompany } from '#companies/companies.js';
import { flag, id, text } from './arguments.js';
import type { Session } from './context.js';

interface CreateOptions {
  partner: number;
  name: string;
  ats?: string;
  status?: string;
  partnerCompanyId?: string;
  entitle?: string;
  isTest?: boolean;
  contactEmail?: string;
}

export function companyCommands(program: Command, session: Session): void {
  const company = program.command('company').description('Companies: create, set-fallback-job, connect, disconnect, entitle, set-status.');

  company
    .command('create')
    .description('Create a company of a partner; prints the Company object as the API shows it.')
    .requiredOption('--partner <PARTNER_ID>', 'The owning partner.', id)
    .requiredOption('--name <NAME>', 'The company name (the slug is derived from it).', text)
    .option('--ats <SLUG>', 'The ATS the company uses (for example sandbox).', text)
    .option('--status <STATUS>', 'invited, requested, active (default), failing, deactivated or deleted.', text)
    .option('--partner-company-id <ID>', "The partner's own id for the company.", text)
    .option('--entitle <LIST>', 'Comma-separated entitlements: job_sync, candidate_sync, email_fallback.', text)
    .option('--is-test', 'Mark the company as a test company.', flag)
    .option('--contact-email <EMAIL>', 'The contact e-mail (used by the e-mail fallback).', text)
    .action(
      session.action(async (options: CreateOptions) => {
        const { createCompany, parseCompanyPatch } = await import('#companies/companies.js');
        const { name, partnerCompanyId, contactEmail, entitle } = options;
        // The field rules of the Company object (name length, e-mail format) are those of the update.
        parseCompanyPatch({
          name,
          ...(partnerCompanyId !== undefined ? { partner_company_id: partnerCompanyId } : {}),
          ...(contactEmail !== undefined ? { contact_email: contactEmail } : {}),
        });
        return createCompany({
          partner: options.partner,
          name,
          ats: options.ats,
          status: options.status as NewCompany['status'],
          partner_company_id: partnerCompanyId,
          entitlements:
            entitle === undefined
              ? undefined
              : entitle
                  .split(',')
                  .map((e) => e.trim())
                  .filter(Boolean),
          is_test: options.isTest === true,
          contact_email: contactEmail,
        });
      }),
    );

  company
    .command('set-fallback-job')
    .description("Set the company's fallback job (used when the applied-for job is no longer published).")
    .argument('<COMPANY_ID>', 'The company.', id)
    .requiredOption('--job <JOB_ID>', 'An active job of that company.', id)
    .addHelpText('after', '\nPrints the Company object as the API shows it.')
    .action(
      session.action(async (companyId: number, options: { job: number }) => {
        const { getCompanyRecord, setCompanyFields, toCompany } = await import('#companies/companies.js');
        const { getJob } = await import('#jobs/jobs.js');
        const { NotFoundError, invalidField } = await import('#platform/errors.js');
        const jobId = options.job;
        if (!(await getCompanyRecord(companyId))) throw new NotFoundError(`Company ${companyId} does not exist.`);
        let job: Awaited<ReturnType<typeof getJob>>;
        try {
          job = await getJob(companyId, jobId);
        } catch (error) {
          if (error instanceof NotFoundError) throw new NotFoundError(`Job ${jobId} does not exist for company ${companyId}.`);
          throw error;
        }
        if (job.status !== 'active') throw invalidField('job', `The fallback job must be active; job ${jobId} is ${job.status}.`);
        await setCompanyFields(companyId, { fallback_job: jobId });
        return toCompany((await getCompanyRecord(companyId))!);
      }),
    );
}
