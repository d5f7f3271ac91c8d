/** `hiring-admin partner ...`: partners (job boards, agencies, ATS vendors). */
import type { Command } from 'commander';
import { text } from './arguments.js';
import type { Session } from './context.js';

export function partnerCommands(program: Command, session: Session): void {
  const partner = program.command('partner').description('Partners: create.');

  partner
    .command('create')
    .description('Create a partner (job board, agency or ATS vendor).')
    .requiredOption('--name <NAME>', 'The partner name.', text)
    .option('--kind <KIND>', 'job_board (default), agency or ats_vendor.', text)
    .addHelpText('after', '\nPrints the partner: {"id", "name", "kind", "created_at"}.')
    .action(
      session.action(async (options: { name: string; kind?: string }) => {
        const { createPartner } = await import('#companies/partners.js');
        return createPartner(options.name, options.kind);
      }),
    );
}
