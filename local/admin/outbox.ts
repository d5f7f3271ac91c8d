/**
 * `hiring-admin outbox ...`: the transactional outbox (P115). Items wait there until the relay has published
 * them; on AWS a stream batch that exhausted its retries goes to the relay's DLQ and leaves its items in the
 * table (P117). `status` shows what waits; `replay` publishes it through the relay's own code (P171).
 */
import type { Command } from 'commander';
import { seconds } from './arguments.js';
import type { Session } from './context.js';
import { ToolError } from './output.js';
import { withProgress } from './progress.js';

export function outboxCommands(program: Command, session: Session): void {
  const outbox = program.command('outbox').description('The event outbox: what waits for the relay, and replaying it.');

  outbox
    .command('status')
    .description('How many events wait in the outbox, and the oldest one, in total and per shard.')
    .addHelpText(
      'after',
      '\nPrints {"waiting", "oldest_at", "oldest_age_seconds", "shards": [{"shard", "waiting", "oldest_at", "oldest_age_seconds"}]}.',
    )
    .action(
      session.action(async () => {
        const { outboxStatus } = await import('#delivery/event-relay.js');
        return outboxStatus();
      }),
    );

  outbox
    .command('replay')
    .description('Publish the waiting events to the events topic through the relay, then delete them (idempotent).')
    .option('--older-than <SECONDS>', 'Only events at least this old, at most ten years (default 0: every waiting event).', seconds)
    .addHelpText(
      'after',
      [
        '',
        'Each shard is replayed in order up to its first failure, like the relay. Events keep their id, so a',
        'consumer that already has one (the stream relay may publish it too) drops the copy. On AWS set',
        'EVENTS_TOPIC_ARN (stack output EventsTopicArn) and pass --older-than (for example 900) so that events',
        'the stream relay is still working on are left to it.',
        'Prints {"older_than", "published", "waiting", "shards": [{"shard", "published", "error"?}]}; exit code 1',
        'with code "replay_incomplete" when a shard stopped at a failure (its events stay for the next replay).',
        'On a terminal a progress bar on stderr shows the events published; piped or redirected, nothing but the',
        'JSON is written.',
      ].join('\n'),
    )
    .action(
      session.action(async (options: { olderThan?: number }) => {
        const { replayOutbox } = await import('#delivery/event-relay.js');
        const result = await withProgress('Publishing events', (onProgress) => replayOutbox(options.olderThan ?? 0, { onProgress }));
        const failed = result.shards.filter((s) => s.error);
        if (failed.length)
          throw new ToolError(
            'replay_incomplete',
            `Published ${result.published} events; ${failed.map((s) => `shard ${s.shard} stopped at a failure (${s.error})`).join('; ')}. ` +
              `${result.waiting} events still wait; run the replay again.`,
          );
        return result;
      }),
    );
}
