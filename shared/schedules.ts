/**
 * The scheduled handlers: the only list of them. The CDK stack makes an EventBridge schedule per entry;
 * the local runtime's scheduler runs them at the same rate (or faster, when told to).
 */
export interface ScheduleDefinition {
  id: string;
  /** Handler module under `functions/`, without extension. */
  handler: string;
  rateMinutes: number;
  access: 'read' | 'write';
  uses?: readonly ('attachments:delete' | 'syncQueue:send' | 'events:publish')[];
  summary: string;
}

export const schedules: readonly ScheduleDefinition[] = [
  { id: 'Retention', handler: 'scheduled/retention', rateMinutes: 60, access: 'write', uses: ['attachments:delete'], summary: 'Delete personal data of applications older than 180 days' },
];
