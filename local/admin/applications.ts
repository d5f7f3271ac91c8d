/**
 * `hiring-admin applications ...`: an application's delivery log (issue 44, D23): every ATS call made for it, as
 * `GET /applications/{id}/deliveries` shows it; with `--follow`, its calls as they are made while its sync runs.
 */
import type { Command } from 'commander';
import { flag, id, seconds } from './arguments.js';
import type { Session } from './context.js';
import { ToolError } from './output.js';

/** How often `--follow` reads the log again. */
const FOLLOW_INTERVAL_MS = 1000;

export function applicationCommands(program: Command, session: Session): void {
  const applications = program.command('applications').description('Applications: their delivery log.');

  applications
    .command('deliveries')
    .description('The ATS calls made for an application (its delivery log), newest first.')
    .argument('<APPLICATION_ID>', 'The application id.', id)
    .option('--follow', 'Print each new call on stderr while the sync runs, until its status is final.', flag)
    .option('--timeout <SECONDS>', 'With --follow: stop waiting after this many seconds (default 900).', seconds)
    .addHelpText(
      'after',
      [
        '',
        'Prints {"application", "company", "sync_status", "failure_error", "deliveries": [{"attempt", "at", "operation",',
        '"method", "url", "status", "duration_ms", "result", "failure_error", "error_code", "response_excerpt",',
        '"fields_sent"}]}. Excerpts are redacted (no candidate contact data or names, no tokens or secrets) and',
        'records are kept for DELIVERY_LOG_DAYS (default 30) days. With --follow, each call is also written as one',
        'JSON line on stderr as it appears (oldest first), and the document is printed once the sync status is',
        'no longer NOTSENT; exit code 1 with code "follow_timeout" when it is still NOTSENT after --timeout.',
      ].join('\n'),
    )
    .action(
      session.action(async (applicationId: number, options: { follow?: boolean; timeout?: number }) => {
        const { applicationDeliveries } = await import('#delivery/delivery-log.js');
        if (!options.follow) return applicationDeliveries(applicationId);
        const seen = new Set<string>();
        const until = Date.now() + (options.timeout ?? 900) * 1000;
        const pause = () => new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
        const readAndPrint = async () => {
          const current = await applicationDeliveries(applicationId);
          for (const record of [...current.deliveries].reverse()) {
            const key = JSON.stringify([record.at, record.attempt, record.method, record.url]);
            if (seen.has(key)) continue;
            seen.add(key);
            process.stderr.write(`${JSON.stringify(record)}\n`);
          }
          return current;
        };
        for (;;) {
          const current = await readAndPrint();
          if (current.sync_status !== 'NOTSENT') {
            // The worker writes an attempt's records just after its status (P304): one more read takes them in.
            await pause();
            return readAndPrint();
          }
          if (Date.now() >= until)
            throw new ToolError('follow_timeout', `Application ${applicationId} is still NOTSENT after ${options.timeout ?? 900} seconds.`);
          await pause();
        }
      }),
    );
}
