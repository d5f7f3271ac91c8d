/** `hiring-admin jobs ...`: job imports (design D14, decision P39). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { flag, id, limit, text } from './arguments.js';
import type { Session } from './context.js';
import { UsageError, withFlagNames } from './output.js';
import { withProgress } from './progress.js';

export function jobsCommands(program: Command, session: Session): void {
  const jobs = program.command('jobs').description('Jobs: import, sync, runs.');

  jobs
    .command('import')
    .description("Run a job import for a company from a JSON file (an array of jobs in the spec's field names).")
    .requiredOption('--company <COMPANY_ID>', 'The company whose jobs these are.', id)
    .requiredOption('--file <FILE>', 'The JSON file (relative to the current directory).', text)
    .option('--partial', 'The file is not the complete feed: jobs missing from it are not archived.', flag)
    .addHelpText(
      'after',
      [
        '',
        'Every job needs an "external_id". Jobs are matched by it: new ones are created, changed ones updated,',
        'and (unless --partial) active jobs missing from the file are archived. Any invalid job (also one too',
        'large to store, over 400 KB) rejects the whole file before anything is written; errors name the job,',
        'for example "[1].remote". Refused for a deactivated or deleted company, and while a jobs sync of it runs.',
        'Prints {"run_id", "created", "updated", "unchanged", "archived"}. On a terminal a progress bar on stderr',
        'shows the jobs written; piped or redirected, nothing but the JSON is written.',
      ].join('\n'),
    )
    .action(
      session.action(
        async (options: { company: number; file: string; partial?: boolean }) => {
          let text: string;
          try {
            text = readFileSync(resolve(options.file), 'utf8');
          } catch (error) {
            throw new UsageError({
              '--file': [`Cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`],
            });
          }
          const { ValidationError } = await import('#platform/errors.js');
          const { importJobFeed } = await import('#delivery/job-import.js');
          let feed: unknown;
          try {
            // An editor's UTF-8 byte order mark is no part of the JSON.
            feed = JSON.parse(text.replace(/^\uFEFF/, ''));
          } catch (error) {
            throw new ValidationError({ '--file': [`Not valid JSON: ${(error as Error).message}`] });
          }
          // The file's own problems are named `--file` (P272), its jobs' `[i].field`.
          return withFlagNames(
            () =>
              withProgress('Writing jobs', (onProgress) =>
                importJobFeed(options.company, feed, { complete: options.partial !== true, onProgress }),
              ),
            { body: '--file' },
          );
        },
        { serviceIdBlocks: true },
      ),
    );

  jobs
    .command('runs')
    .description("A company's last job import runs from its ATS, newest first: when, outcome, counts and the ATS calls made.")
    .requiredOption('--company <COMPANY_ID>', 'The company.', id)
    .option('--limit <N>', 'How many runs, at most 1000 (default 10).', limit)
    .addHelpText(
      'after',
      [
        '',
        'Prints {"company", "runs": [{"run_id", "started_at", "finished_at", "outcome", "counts": {"created",',
        '"updated", "unchanged", "archived"}, "calls": [the records of `applications deliveries`]}]}. Outcomes:',
        'success, credentials_rejected, ats_unreachable, invalid_feed. Kept for DELIVERY_LOG_DAYS (default 30) days.',
      ].join('\n'),
    )
    .action(
      session.action(async (options: { company: number; limit?: number }) => {
        const { requireCompany } = await import('#companies/company-store.js');
        const { jobImportRuns } = await import('#delivery/delivery-log.js');
        await requireCompany(options.company);
        return { company: options.company, runs: await jobImportRuns(options.company, options.limit ?? 10) };
      }),
    );
}
