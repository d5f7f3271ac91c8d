/** `hiring-admin company ...`: companies of a partner. */
import type { Command } from 'commander';
import type { NewCompany } from '#companies/company-store.js';
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
  const company = program
    .command('company')
    .description('Companies: create, invite, invite-link, set-fallback-job, connect, disconnect, entitle, set-status.');

  company
    .command('create')
    .description('Create a company of a partner; prints the Company object as the API shows it.')
    .requiredOption('--partner <PARTNER_ID>', 'The owning partner.', id)
    .requiredOption('--name <NAME>', 'The company name (the slug is derived from it).', text)
    .option('--ats <SLUG>', 'The ATS the company uses (for example sandbox).', text)
    .option('--status <STATUS>', 'invited, requested, active (default), failing, deactivated or deleted.', text)
    .option('--partner-company-id <ID>', "The partner's own id for the company.", text)
    .option(
      '--entitle <LIST>',
      'Comma-separated entitlements: job_sync, candidate_sync, email_fallback, external_apply, apply:<channel>.',
      text,
    )
    .option('--is-test', 'Mark the company as a test company.', flag)
    .option('--contact-email <EMAIL>', 'The contact e-mail (used by the e-mail fallback).', text)
    .action(
      session.action(async (options: CreateOptions) => {
        const { createCompany } = await import('#companies/company-store.js');
        const { parseCompanyPatch } = await import('#companies/company-schema.js');
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
    .command('invite')
    .description('Create an invited company with a magic link, through which it connects its ATS itself (D20).')
    .requiredOption('--partner <PARTNER_ID>', 'The owning partner.', id)
    .requiredOption('--name <NAME>', 'The company name (the slug is derived from it).', text)
    .option('--contact-email <EMAIL>', 'The contact e-mail.', text)
    .option('--partner-company-id <ID>', "The partner's own id for the company.", text)
    .addHelpText(
      'after',
      [
        '',
        'Prints the Company object (status "invited"); its magic_link is {PUBLIC_BASE_URL}/connect/{token} and works',
        'for MAGIC_LINK_TTL_DAYS (default 14), once.',
      ].join('\n'),
    )
    .action(
      session.action(async (options: { partner: number; name: string; contactEmail?: string; partnerCompanyId?: string }) => {
        const { parseCompanyPatch } = await import('#companies/company-schema.js');
        const { inviteCompany } = await import('#companies/invites.js');
        const { name, partnerCompanyId, contactEmail } = options;
        parseCompanyPatch({
          name,
          ...(partnerCompanyId !== undefined ? { partner_company_id: partnerCompanyId } : {}),
          ...(contactEmail !== undefined ? { contact_email: contactEmail } : {}),
        });
        return inviteCompany(
          { partner: options.partner, name, contact_email: contactEmail, partner_company_id: partnerCompanyId },
          await publicBaseUrl(session),
        );
      }),
    );

  company
    .command('invite-link')
    .description('Issue a fresh magic link for a company that is not connected; the previous link stops working.')
    .argument('<COMPANY_ID>', 'The company.', id)
    .addHelpText('after', '\nPrints the Company object with the new magic_link.')
    .action(
      session.action(async (companyId: number) => {
        const { reissueMagicLink } = await import('#companies/invites.js');
        return reissueMagicLink(companyId, await publicBaseUrl(session));
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
        const { getCompanyRecord, setCompanyFields } = await import('#companies/company-store.js');
        const { toCompany } = await import('#companies/company-schema.js');
        const { getJob } = await import('#jobs/job-store.js');
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

/**
 * The base of `magic_link`: `PUBLIC_BASE_URL`; else the running `npm start`'s address; else the address
 * `npm start` would have (`http://127.0.0.1:$PORT`, default 3000). On AWS it must be set.
 */
export async function publicBaseUrl(session: Session): Promise<string> {
  const { invalidField } = await import('#platform/errors.js');
  const { isHttpUrl } = await import('#platform/web-formats.js');
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) {
    if (!isHttpUrl(configured)) throw invalidField('PUBLIC_BASE_URL', 'Must be an http(s) URL.');
    return configured.replace(/\/+$/, '');
  }
  if (session.where?.mode === 'server') return session.where.url;
  if (session.where?.mode === 'aws')
    throw invalidField('PUBLIC_BASE_URL', "Set it to the API's public address (the magic link is built on it).");
  return `http://127.0.0.1:${Number(process.env.PORT ?? 3000)}`;
}
