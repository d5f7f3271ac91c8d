/**
 * The background functions of shared/background-functions.ts as deployed: the sync worker on the queue
 * with partial batch failures and the grants it needs, the sweeper and retention on schedules.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { backgroundFunctions } from '#delivery/background-functions.js';
import { resources } from '#platform/resources.js';
import { NO_BUNDLING, actionsOf, functionStatements, resourcesOfType, synthStack, type Synthesized } from './synth-stack.js';

let synthesized: Synthesized;
beforeAll(() => {
  synthesized = synthStack({ ...NO_BUNDLING, stage: 'prod' });
}, 120_000);
afterAll(() => synthesized?.cleanup());

const fnByDescriptionPrefix = (id: string) =>
  resourcesOfType(synthesized.template, 'AWS::Lambda::Function').find(([, fn]) => String(fn.Properties.Description).startsWith(`${id}:`))!;

const policyActions = (functionId: string) => actionsOf(functionStatements(synthesized.template, functionId), '');

test('every background function exists once', () => {
  for (const definition of backgroundFunctions) expect(fnByDescriptionPrefix(definition.id)).toBeDefined();
});

test('the sync worker consumes the sync queue with partial batch failures, and can delay, read attachments, publish and mail', () => {
  const [id, fn] = fnByDescriptionPrefix('SyncWorker');
  Template.fromJSON(synthesized.template).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: id },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  expect(fn.Properties.Timeout * 6).toBeLessThanOrEqual(resources.syncQueue.visibilityTimeoutSeconds);
  expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
    expect.arrayContaining(['TABLE_NAME', 'BUCKET_NAME', 'EVENTS_TOPIC_ARN', 'SYNC_QUEUE_URL', 'EMAIL_FROM']),
  );
  const actions = policyActions(id);
  expect(actions).toEqual(
    expect.arrayContaining([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:ReceiveMessage',
      's3:GetObject',
      'sns:Publish',
      'ses:SendRawEmail',
      'dynamodb:UpdateItem',
    ]),
  );
  expect(actions).not.toContain('s3:PutObject');
  expect(actions).not.toContain('s3:DeleteObject');
});

test('the sweeper and retention run on schedules with only what they need', () => {
  const rules = resourcesOfType(synthesized.template, 'AWS::Events::Rule').map(([, r]) => r.Properties);
  const [sweeperId] = fnByDescriptionPrefix('SyncSweeper');
  const [retentionId] = fnByDescriptionPrefix('Retention');
  const target = (id: string) =>
    rules.find((r) => r.Targets.some((t: { Arn: { 'Fn::GetAtt': string[] } }) => t.Arn['Fn::GetAtt'][0] === id));
  expect(target(sweeperId)?.ScheduleExpression).toBe('rate(5 minutes)');
  expect(target(retentionId)?.ScheduleExpression).toBe('rate(1 hour)');
  expect(policyActions(sweeperId)).toEqual(expect.arrayContaining(['sqs:SendMessage']));
  expect(policyActions(sweeperId).filter((a) => a.startsWith('s3:'))).toEqual([]);
  expect(policyActions(retentionId)).toEqual(expect.arrayContaining(['s3:DeleteObject']));
  expect(policyActions(retentionId)).not.toContain('s3:PutObject');
  expect(policyActions(retentionId).filter((a) => a.startsWith('sqs:'))).toEqual([]);
});

test('an alarm watches the sync worker for errors, and S3 expires attachments as a retention backstop', () => {
  const [workerId] = fnByDescriptionPrefix('SyncWorker');
  const template = Template.fromJSON(synthesized.template);
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'Errors',
    Namespace: 'AWS/Lambda',
    Dimensions: [{ Name: 'FunctionName', Value: { Ref: workerId } }],
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
  });
  template.hasResourceProperties('AWS::S3::Bucket', {
    LifecycleConfiguration: {
      Rules: [
        { Id: 'abort-incomplete-multipart-uploads', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' },
        { Id: 'retention-backstop', Prefix: 'companies/', ExpirationInDays: 190, Status: 'Enabled' },
      ],
    },
  });
});
