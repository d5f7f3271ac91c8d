/** `hiring-admin key ...`: API keys of a partner or of one company. */
import type { Command } from 'commander';
import { exactlyOne, id } from './arguments.js';
import type { Session } from './context.js';
import { UsageError } from './output.js';

export function keyCommands(program: Command, session: Session): void {
  const key = program.command('key').description('API keys: create, revoke.');

  key
    .command('create')
    .description('Create an API key for a partner or for one company. The key is shown only this once.')
    .usage('(--partner PARTNER_ID | --company COMPANY_ID)')
    .option('--partner <PARTNER_ID>', 'A partner key (acts for all companies of the partner).', id)
    .option('--company <COMPANY_ID>', 'A company key (acts only for that company).', id)
    .addHelpText('after', '\nGive exactly one of --partner and --company.\nPrints {"id", "key", "scope"}.')
    .hook('preAction', (cmd) => {
      const errors = exactlyOne(cmd, ['--partner', '--company']);
      if (errors) throw new UsageError(errors);
    })
    .action(
      session.action(async (options: { partner?: number; company?: number }) => {
        const { createApiKey } = await import('#companies/api-keys.js');
        return createApiKey(options.partner !== undefined ? { partner: options.partner } : { company: options.company! });
      }),
    );

  key
    .command('revoke')
    .description('Revoke an API key by its id.')
    .argument('<KEY_ID>', 'The id printed by `key create`.', id)
    .addHelpText('after', '\nPrints {"id", "status": "revoked"}. Gateways may serve a cached authorization for up to the authorizer TTL.')
    .action(
      session.action(async (keyId: number) => {
        const { revokeApiKey } = await import('#companies/api-keys.js');
        return revokeApiKey(keyId);
      }),
    );
}
