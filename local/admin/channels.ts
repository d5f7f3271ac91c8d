/** `hiring-admin channel ...`: talent channels (where applications come from, referenced by slug). */
import type { Command } from 'commander';
import { text, url } from './arguments.js';
import type { Session } from './context.js';

export function channelCommands(program: Command, session: Session): void {
  const channel = program.command('channel').description('Talent channels: create.');

  channel
    .command('create')
    .description('Create a talent channel (where applications come from, referenced by its slug).')
    .requiredOption('--slug <SLUG>', 'Lower-case letters, digits, "-" and "_".', text)
    .requiredOption('--name <NAME>', 'The display name.', text)
    .option('--logo <URL>', 'An http(s) URL of the logo.', url)
    .addHelpText('after', '\nPrints the channel: {"id", "slug", "name", "logo", "created_at"}.')
    .action(
      session.action(async (options: { slug: string; name: string; logo?: string }) => {
        const { createChannel } = await import('#applications/channels.js');
        return createChannel(options);
      }),
    );
}
