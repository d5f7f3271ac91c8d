/** `hiring-admin channel ...`: talent channels (where applications come from, referenced by slug) and apply channels. */
import type { Command } from 'commander';
import { text, url } from './arguments.js';
import type { Session } from './context.js';

interface CreateOptions {
  slug: string;
  name: string;
  logo?: string;
  format?: string;
  secret?: string;
}

export function channelCommands(program: Command, session: Session): void {
  const channel = program.command('channel').description('Talent channels and apply channels: create, update, revoke-tokens.');

  channel
    .command('create')
    .description('Create a talent channel (where applications come from, referenced by its slug); with --format an apply channel.')
    .requiredOption('--slug <SLUG>', 'Lower-case letters, digits, "-" and "_".', text)
    .requiredOption('--name <NAME>', 'The display name.', text)
    .option('--logo <URL>', 'An http(s) URL of the logo.', url)
    .option('--format <FORMAT>', 'Makes it an apply channel job boards post applications to: generic or indeed.', text)
    .option('--secret <SECRET>', 'With --format indeed: the API secret Indeed issued (generic channels get a generated one).', text)
    .addHelpText(
      'after',
      [
        '',
        'Prints the channel: {"id", "slug", "name", "logo", "created_at"}; an apply channel also {"format", "generation"},',
        'and for --format generic its signing secret "secret" (whsec_..., Standard Webhooks), shown this once only.',
        'Entitle companies to it with: company entitle COMPANY_ID --add apply:SLUG',
      ].join('\n'),
    )
    .action(
      session.action(async (options: CreateOptions) => {
        const { createChannel } = await import('#applications/channels.js');
        const { slug, name, logo, format, secret } = options;
        if (format === undefined) {
          if (secret !== undefined) {
            const { invalidField } = await import('#platform/errors.js');
            throw invalidField('secret', 'Only an apply channel (--format) has a secret.');
          }
          return createChannel({ slug, name, logo });
        }
        const { applyChannelItems, checkApplyChannelInput } = await import('#companies/apply-channels.js');
        // Checked before anything is written; the channel, its inbound side and its sealed secret are one transaction.
        const inbound = checkApplyChannelInput({ slug, format, secret });
        const created = await createChannel({ slug, name, logo }, (c) => applyChannelItems(c, inbound.format, inbound.secret));
        return { ...created, format: inbound.format, generation: 1, ...(inbound.generated ? { secret: inbound.secret } : {}) };
      }),
    );

  channel
    .command('update')
    .description(
      "Set where an apply channel reports dispositions back to its board (D22): a generic channel's URL, an indeed channel's client.",
    )
    .requiredOption('--slug <SLUG>', 'The apply channel.', text)
    .option('--disposition-url <URL>', 'generic: the http(s) URL each status change is POSTed to, signed; "" turns it off.', text)
    .option('--indeed-client-id <ID>', 'indeed: the OAuth client id of the Disposition Sync API app.', text)
    .option('--indeed-client-secret <SECRET>', 'indeed: its client secret (sealed; never printed).', text)
    .addHelpText('after', '\nPrints {"slug", "format", "disposition_url", "indeed_client_id"}; never the secret.')
    .action(
      session.action(async (options: { slug: string; dispositionUrl?: string; indeedClientId?: string; indeedClientSecret?: string }) => {
        const { setChannelDisposition } = await import('#companies/apply-channels.js');
        if (options.dispositionUrl) {
          // The address rules of partner webhooks (P132): https, a public address (plain http to loopback only when allowed).
          const { webhookUrlProblems } = await import('#delivery/webhook-endpoints.js');
          const problems = await webhookUrlProblems(options.dispositionUrl);
          if (problems.length) {
            const { invalidField } = await import('#platform/errors.js');
            throw invalidField('disposition_url', problems[0]);
          }
        }
        return setChannelDisposition(options.slug, {
          disposition_url: options.dispositionUrl,
          indeed_client_id: options.indeedClientId,
          indeed_client_secret: options.indeedClientSecret,
        });
      }),
    );

  channel
    .command('revoke-tokens')
    .description("Revoke every apply URL of an apply channel: its jobs' apply_webhooks get new tokens, the old ones stop working.")
    .requiredOption('--slug <SLUG>', 'The apply channel.', text)
    .addHelpText('after', '\nPrints the apply channel: {"channel_id", "slug", "format", "generation", "created_at", "updated_at"}.')
    .action(
      session.action(async (options: { slug: string }) => {
        const { revokeApplyTokens } = await import('#companies/apply-channels.js');
        return revokeApplyTokens(options.slug);
      }),
    );
}
