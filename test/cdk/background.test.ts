/**
 * The background functions of shared/background-functions.ts as deployed: the sync worker on the queue
 * with partial batch failures and the grants it needs, the sweeper and retention on schedules.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { backgroundFunctions } from '#delivery/background-functions.js';
import { allRoutes } from '#http/routes.js';
import { resources } from '#platform/resources.js';
import { actionsOf, functionStatements, resourcesOfType, SHARED_SYNTH_TIMEOUT_MS, sharedSynth, type Synthesized } from './template.js';

let synthesized: Synthesized;
// The prod stack with context values for the ATS hosts (issue 9), synthesized once per run (P296).
beforeAll(async () => {
  synthesized = await sharedSynth('prodAtsHosts');
}, SHARED_SYNTH_TIMEOUT_MS);
afterAll(() => synthesized?.cleanup());

const fnByDescriptionPrefix = (id: string) =>
  resourcesOfType(synthesized.template, 'AWS::Lambda::Function').find(([, fn]) => String(fn.Properties.Description).startsWith(`${id}:`))!;

const policyActions = (functionId: string) => actionsOf(functionStatements(synthesized.template, functionId), '');

test('every background function exists once', () => {
  for (const definition of backgroundFunctions) expect(fnByDescriptionPrefix(definition.id)).toBeDefined();
});

test('the sync worker consumes the sync queue with partial batch failures, and can delay, read attachments and mail', () => {
  const [id, fn] = fnByDescriptionPrefix('SyncWorker');
  Template.fromJSON(synthesized.template).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: id },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  expect(fn.Properties.Timeout * 6).toBeLessThanOrEqual(resources.syncQueue.visibilityTimeoutSeconds);
  expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
    expect.arrayContaining(['TABLE_NAME', 'BUCKET_NAME', 'SYNC_QUEUE_URL', 'EMAIL_FROM']),
  );
  // P115: its events go into the outbox in the status transaction; only the relay publishes.
  expect(Object.keys(fn.Properties.Environment.Variables)).not.toContain('EVENTS_TOPIC_ARN');
  // The external-apply e-mail (P206) links to the gateway's own stage URL: its REST API id, region, stage.
  const base = JSON.stringify(fn.Properties.Environment.Variables.PUBLIC_BASE_URL);
  const [apiId] = Object.entries(synthesized.template.Resources as Record<string, { Type: string }>).find(
    ([, r]) => r.Type === 'AWS::ApiGateway::RestApi',
  )!;
  expect(base).toContain(`{"Ref":"${apiId}"}`);
  expect(base).toContain('.execute-api.');
  expect(base).toMatch(/\/(dev|prod)"\]\]\}$/);
  const actions = policyActions(id);
  expect(actions).toEqual(
    expect.arrayContaining([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:ReceiveMessage',
      's3:GetObject',
      'ses:SendRawEmail',
      'dynamodb:UpdateItem',
    ]),
  );
  expect(actions).not.toContain('s3:PutObject');
  expect(actions).not.toContain('s3:DeleteObject');
  expect(actions).not.toContain('sns:Publish');
});

test('the event relay (P115, P240): fed by the table stream (old and new images), outbox INSERTs and items carrying an event, partial batch failures, a DLQ; it may publish, and put and delete outbox items only', () => {
  const template = Template.fromJSON(synthesized.template);
  const [tableId, table] = resourcesOfType(synthesized.template, 'AWS::DynamoDB::Table')[0];
  expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  const [relayId, relay] = fnByDescriptionPrefix('EventRelay');
  const [dlqId] = resourcesOfType(synthesized.template, 'AWS::SQS::Queue').find(
    ([, q]) => q.Properties.QueueName === 'his-prod-event-relay-dlq',
  )!;
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: relayId },
    EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
    StartingPosition: 'TRIM_HORIZON',
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
    FilterCriteria: {
      Filters: [
        { Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { Keys: { PK: { S: [{ prefix: 'OUTBOX#' }] } } } }) },
        { Pattern: JSON.stringify({ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { ev: { S: [{ exists: true }] } } } }) },
      ],
    },
  });
  // P345: it hands stage-only changes to the webhook worker's queue.
  expect(Object.keys(relay.Properties.Environment.Variables).sort()).toEqual(
    expect.arrayContaining(['EVENTS_TOPIC_ARN', 'TABLE_NAME', 'WEBHOOK_QUEUE_URL']),
  );
  const actions = policyActions(relayId);
  expect(actions).toEqual(
    expect.arrayContaining(['sns:Publish', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:GetRecords', 'sqs:SendMessage']),
  );
  for (const write of ['dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem'])
    expect(actions).not.toContain(write);
  // Its item writes (a delete after the publish, a put to park an event it could not publish) reach outbox partitions only.
  const itemWrites = functionStatements(synthesized.template, relayId).filter((s: any) =>
    [s.Action].flat().some((a: string) => a === 'dynamodb:PutItem' || a === 'dynamodb:DeleteItem'),
  );
  expect(itemWrites).toEqual([
    expect.objectContaining({
      Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['OUTBOX#*'] } },
    }),
  ]);
  expect(actions.filter((a) => a.startsWith('s3:') || a.startsWith('kms:'))).toEqual([]);
  // Nothing else publishes: no other function of the stack holds sns:Publish on the events topic.
  const publishers = resourcesOfType(synthesized.template, 'AWS::Lambda::Function')
    .filter(([id]) => policyActions(id).includes('sns:Publish'))
    .map(([, fn]) => String(fn.Properties.Description).split(':')[0]);
  expect(publishers).toEqual(['EventRelay']);
  template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'his-prod-event-relay-dlq-depth', Threshold: 0 });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'Errors',
    Dimensions: [{ Name: 'FunctionName', Value: { Ref: relayId } }],
  });
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
        { Id: 'retention-backstop', Prefix: 'companies/', ExpirationInDays: 180, Status: 'Enabled' },
      ],
    },
  });
});

test('the job import: an hourly fan-out that may only send to the import queue, and a worker on that queue that may open credentials', () => {
  const [fanOutId] = fnByDescriptionPrefix('JobImportScheduler');
  const [workerId, worker] = fnByDescriptionPrefix('JobImportWorker');
  const rules = resourcesOfType(synthesized.template, 'AWS::Events::Rule').map(([, r]) => r.Properties);
  const rule = rules.find((r) => r.Targets.some((t: { Arn: { 'Fn::GetAtt': string[] } }) => t.Arn['Fn::GetAtt'][0] === fanOutId));
  expect(rule?.ScheduleExpression).toBe('rate(1 hour)');
  expect(policyActions(fanOutId)).toEqual(expect.arrayContaining(['sqs:SendMessage', 'dynamodb:Query']));
  expect(policyActions(fanOutId)).not.toContain('dynamodb:PutItem');
  expect(policyActions(fanOutId).filter((a) => a.startsWith('kms:'))).toEqual([]);
  const [queueId] = resourcesOfType(synthesized.template, 'AWS::SQS::Queue').find(
    ([, q]) => q.Properties.QueueName === 'his-prod-job-import',
  )!;
  Template.fromJSON(synthesized.template).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: workerId },
    EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
    BatchSize: 1,
    ScalingConfig: { MaximumConcurrency: 5 },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  expect(worker.Properties.Timeout * 6).toBeLessThanOrEqual(resources.jobImportQueue.visibilityTimeoutSeconds);
  // Decrypt only: the workers open credentials; sealing is the operator's (connect).
  expect(policyActions(workerId)).toEqual(expect.arrayContaining(['kms:Decrypt']));
  expect(policyActions(workerId)).not.toContain('kms:GenerateDataKey*');
  expect(policyActions(workerId)).not.toContain('kms:Encrypt');
});

test('the ATS hosts come from context values, only into the functions that call ATSs, with the credentials key', () => {
  const [keyId, key] = resourcesOfType(synthesized.template, 'AWS::KMS::Key')[0];
  expect(key.Properties.EnableKeyRotation).toBe(true);
  expect(key.DeletionPolicy).toBe('Retain');
  for (const id of ['SyncWorker', 'JobImportWorker']) {
    const variables = fnByDescriptionPrefix(id)[1].Properties.Environment.Variables;
    expect(variables).toMatchObject({
      LEVER_API_URL: 'https://api.eu.lever.co',
      PERSONIO_FEED_URL: 'https://{subdomain}.jobs.personio.example/xml',
      CREDENTIALS_KMS_KEY_ID: { 'Fn::GetAtt': [keyId, 'Arn'] },
    });
    // Unset context values leave the connectors' real defaults.
    expect(variables.GREENHOUSE_API_URL).toBeUndefined();
  }
  for (const id of ['SyncSweeper', 'Retention', 'JobImportScheduler'])
    expect(Object.keys(fnByDescriptionPrefix(id)[1].Properties.Environment.Variables)).not.toContain('LEVER_API_URL');
  expect(synthesized.template.Outputs).toHaveProperty('CredentialsKeyArn');
});

test('webhooks (D19): a queue with a DLQ subscribed raw to the events topic, a worker on it with least privilege, and a DLQ alarm', () => {
  const template = Template.fromJSON(synthesized.template);
  const queues = resourcesOfType(synthesized.template, 'AWS::SQS::Queue');
  const [queueId, queue] = queues.find(([, q]) => q.Properties.QueueName === 'his-prod-webhooks')!;
  const [dlqId, dlq] = queues.find(([, q]) => q.Properties.QueueName === 'his-prod-webhooks-dlq')!;
  expect(queue.Properties).toMatchObject({
    VisibilityTimeout: resources.webhookQueue.visibilityTimeoutSeconds,
    MessageRetentionPeriod: 14 * 24 * 3600,
    SqsManagedSseEnabled: true,
    RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: resources.webhookQueue.maxReceiveCount },
  });
  expect(dlq.Properties.SqsManagedSseEnabled).toBe(true);
  const [topicId] = resourcesOfType(synthesized.template, 'AWS::SNS::Topic').find(([, t]) => t.Properties.TopicName === 'his-prod-events')!;
  template.hasResourceProperties('AWS::SNS::Subscription', {
    Protocol: 'sqs',
    TopicArn: { Ref: topicId },
    Endpoint: { 'Fn::GetAtt': [queueId, 'Arn'] },
    RawMessageDelivery: true,
  });
  // SNS may send to the queue, and only from the events topic.
  const policy = resourcesOfType(synthesized.template, 'AWS::SQS::QueuePolicy').find(([, p]) => p.Properties.Queues[0].Ref === queueId)!;
  expect(policy[1].Properties.PolicyDocument.Statement).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        Action: 'sqs:SendMessage',
        Principal: { Service: 'sns.amazonaws.com' },
        Condition: { ArnEquals: { 'aws:SourceArn': { Ref: topicId } } },
      }),
    ]),
  );

  const [workerId, worker] = fnByDescriptionPrefix('WebhookWorker');
  template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
    FunctionName: { Ref: workerId },
    EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
    FunctionResponseTypes: ['ReportBatchItemFailures'],
  });
  expect(worker.Properties.Timeout * 6).toBeLessThanOrEqual(resources.webhookQueue.visibilityTimeoutSeconds);
  expect(Object.keys(worker.Properties.Environment.Variables).sort()).toEqual(
    expect.arrayContaining(['CREDENTIALS_KMS_KEY_ID', 'TABLE_NAME', 'WEBHOOK_QUEUE_URL']),
  );
  // webhook.endpoint_disabled goes through the outbox (P115): the worker does not publish itself.
  expect(Object.keys(worker.Properties.Environment.Variables)).not.toContain('EVENTS_TOPIC_ARN');
  expect(worker.Properties.Environment.Variables.WEBHOOK_ALLOW_LOOPBACK_HTTP).toBeUndefined();
  expect(worker.Properties.Environment.Variables.WEBHOOK_EXTRA_CA_FILE).toBeUndefined();
  const actions = policyActions(workerId);
  expect(actions).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:ChangeMessageVisibility', 'kms:Decrypt', 'dynamodb:PutItem']));
  for (const forbidden of ['sns:Publish', 's3:GetObject', 'ses:SendRawEmail', 'kms:Encrypt', 'kms:GenerateDataKey*'])
    expect(actions).not.toContain(forbidden);
  expect(Object.keys(worker.Properties.Environment.Variables)).not.toContain('LEVER_API_URL');

  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    AlarmName: 'his-prod-webhook-dlq-depth',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
    Threshold: 0,
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'Errors',
    Dimensions: [{ Name: 'FunctionName', Value: { Ref: workerId } }],
  });
});

describe('metrics and traces (issue 25 item 3)', () => {
  const template = () => synthesized.template;

  test('every background function writes metrics to the stage namespace and is traced, with the X-Ray grants', () => {
    for (const definition of backgroundFunctions) {
      const [id, fn] = fnByDescriptionPrefix(definition.id);
      expect({ id: definition.id, namespace: fn.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE }).toEqual({
        id: definition.id,
        namespace: 'HiringIntegrationService/prod',
      });
      // Tracer stays off unless the function is in Lambda with active tracing: nothing may turn it off here.
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(policyActions(id)).toEqual(expect.arrayContaining(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']));
    }
  });

  test('the dashboard shows every route, and sync, webhook and import metrics from the namespace the functions write to', () => {
    const dashboards = resourcesOfType(template(), 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const [, dashboard] = dashboards[0];
    expect(dashboard.Properties.DashboardName).toBe('his-prod-service');
    // The body is a Fn::Join of strings and the region reference: joined with a stand-in region, it is the dashboard's JSON.
    const [, parts] = dashboard.Properties.DashboardBody['Fn::Join'] as [string, unknown[]];
    const body = JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'REGION')).join('')) as {
      widgets: { properties: { title?: string; metrics?: unknown[][] } }[];
    };
    const metrics = body.widgets.flatMap((w) => w.properties.metrics ?? []);
    // Per route: [namespace, metric, dimension, value, dimension, value, options].
    for (const metric of ['Requests', 'Latency', 'Errors4xx', 'Errors5xx', 'DynamoDBReadUnits', 'DynamoDBWriteUnits']) {
      const routes = metrics.filter((m) => m[0] === 'HiringIntegrationService/prod' && m[1] === metric);
      expect(routes.map((m) => m.slice(2, 6))).toEqual(allRoutes.map((r) => ['route', r.id, 'service', 'hiring-integration-service']));
    }
    const expressions = metrics.map((m) => (m[0] as { expression?: string }).expression).filter(Boolean);
    for (const [metric, dimensions] of [
      ['SyncOutcomes', 'service,ats,sync_status,failure_error'],
      ['WebhookDeliveries', 'service,result'],
      ['JobImportRuns', 'service,result'],
      ['JobsCreated', 'service,result'],
      ['JobsUpdated', 'service,result'],
      ['JobsArchived', 'service,result'],
    ])
      expect(expressions).toContain(
        `SEARCH('{HiringIntegrationService/prod,${dimensions}} MetricName="${metric}" service="hiring-integration-service"', 'Sum', 300)`,
      );
  });
});
