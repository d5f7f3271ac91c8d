/** `hiring-admin webhook ...`: partners' webhook endpoints (D19) and their delivery attempts. */
import type { Command } from 'commander';
import { id, limit, text } from './arguments.js';
import type { Session } from './context.js';

export function webhookCommands(program: Command, session: Session): void {
  const webhook = program.command('webhook').description("Partners' webhook endpoints: create, list, delete, deliveries.");

  webhook
    .command('create')
    .description('Register an HTTPS endpoint of a partner. Its signing secret is shown only this once.')
    .requiredOption('--partner <PARTNER_ID>', "The partner whose companies' events the endpoint receives.", id)
    .requiredOption('--url <URL>', 'An https URL on a public address.', text)
    .option('--events <TYPES>', 'Comma-separated event types to deliver (default: all), e.g. application.sync_status_changed.', text)
    .addHelpText(
      'after',
      [
        '',
        'Prints {"id", "partner", "url", "events", "status", "created_at", "secret", ...}; the secret (whsec_...)',
        'verifies the webhook-signature of each delivery and is not shown again. See docs/webhooks.md.',
      ].join('\n'),
    )
    .action(
      session.action(async (options: { partner: number; url: string; events?: string }) => {
        const { createWebhookEndpoint } = await import('#delivery/webhook-endpoints.js');
        const events = options.events === undefined ? undefined : options.events.split(',').map((e) => e.trim());
        return createWebhookEndpoint({ partner: options.partner, url: options.url, ...(events ? { events } : {}) });
      }),
    );

  webhook
    .command('list')
    .description('List webhook endpoints, of one partner or of all.')
    .option('--partner <PARTNER_ID>', "Only this partner's endpoints.", id)
    .addHelpText('after', '\nPrints {"results": [{"id", "partner", "url", "events", "status", "failing_since", ...}]}, without secrets.')
    .action(
      session.action(async (options: { partner?: number }) => {
        const { listWebhookEndpoints } = await import('#delivery/webhook-endpoints.js');
        return { results: await listWebhookEndpoints(options.partner) };
      }),
    );

  webhook
    .command('delete')
    .description('Delete a webhook endpoint and its secret; deliveries still queued for it are dropped.')
    .argument('<WEBHOOK_ID>', 'The id printed by `webhook create`.', id)
    .addHelpText('after', '\nPrints {"id", "status": "deleted"}.')
    .action(
      session.action(async (webhookId: number) => {
        const { deleteWebhookEndpoint } = await import('#delivery/webhook-endpoints.js');
        return deleteWebhookEndpoint(webhookId);
      }),
    );

  webhook
    .command('deliveries')
    .description('The recent delivery attempts of an endpoint, newest first (kept 14 days).')
    .argument('<WEBHOOK_ID>', 'The id printed by `webhook create`.', id)
    .option('--limit <N>', 'How many attempts, at most 1000 (default 50).', limit)
    .addHelpText(
      'after',
      '\nPrints {"webhook", "results": [{"at", "event_id", "event_type", "attempt", "status_code", "latency_ms", "error"}]}.',
    )
    .action(
      session.action(async (webhookId: number, options: { limit?: number }) => {
        const { getWebhookEndpoint, listWebhookAttempts } = await import('#delivery/webhook-endpoints.js');
        return { webhook: await getWebhookEndpoint(webhookId), results: await listWebhookAttempts(webhookId, options.limit ?? 50) };
      }),
    );
}
