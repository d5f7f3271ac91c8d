/** `hiring-admin migrate`: the data migrations of shared/applications/migrations.ts, run to their end. */
import type { Command } from 'commander';
import type { Session } from './context.js';

export function migrateCommands(program: Command, session: Session): void {
  program
    .command('migrate')
    .description('Bring existing items to the current index layout and counters (idempotent, resumes after a crash).')
    .addHelpText(
      'after',
      [
        '',
        'Run it once after deploying a version that adds indexes (docs/access-patterns.md, "Migration").',
        'Each step scans the table page by page and saves where it got to, so an interrupted run continues',
        'where it stopped; running it again after it finished changes nothing. Progress goes to stderr, one line',
        'a page; the result is printed as {"migrations": [{"name", "scanned", "migrated", "done"}]}.',
      ].join('\n'),
    )
    .action(
      session.action(async () => {
        const { runMigrations } = await import('#applications/migrations.js');
        const migrations = await runMigrations((p) =>
          process.stderr.write(`migrate: ${p.name}: ${p.scanned} items scanned, ${p.migrated} migrated${p.done ? ', done' : ''}\n`),
        );
        return { migrations };
      }),
    );
}
