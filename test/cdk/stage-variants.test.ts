/**
 * What changes with context and with the background-function list. Bundling is skipped here
 * (`aws:cdk:bundling-stacks: []`): these tests are about the template, and service-stack.test.ts bundles.
 */
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { resources } from '#platform/resources.js';
import { functionStatements, NO_BUNDLING, resourcesOfType, withApp } from './synth-stack.js';
import { SHARED_SYNTH_TIMEOUT_MS, sharedSynth, TEST_BACKGROUND_FUNCTIONS, type Synthesized } from './template.js';

describe('prod with WAF', () => {
  let synthesized: Synthesized;
  let template: Template;
  beforeAll(async () => {
    synthesized = await sharedSynth('prodWaf');
    template = Template.fromJSON(synthesized.template);
  }, SHARED_SYNTH_TIMEOUT_MS);
  afterAll(() => synthesized?.cleanup());

  test('retains the data: table with deletion protection, buckets, queues and the cursor secret', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    for (const type of ['AWS::S3::Bucket', 'AWS::SQS::Queue', 'AWS::SecretsManager::Secret']) {
      for (const [id, resource] of resourcesOfType(synthesized.template, type))
        expect([id, resource.DeletionPolicy]).toEqual([id, 'Retain']);
    }
    // Retained buckets keep their objects: no auto-delete custom resource.
    expect(resourcesOfType(synthesized.template, 'Custom::S3AutoDeleteObjects')).toEqual([]);
  });

  test('names resources and the stage by stage, with prod limits', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'his-prod-table' });
    template.hasResourceProperties('AWS::SQS::Queue', { QueueName: `his-prod-${resources.syncQueue.name}` });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 })]),
    });
  });

  test('associates a regional web ACL of AWS managed rules with the stage, counting the body-size rule', () => {
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: {
            ManagedRuleGroupStatement: Match.objectLike({
              VendorName: 'AWS',
              Name: 'AWSManagedRulesCommonRuleSet',
              RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
            }),
          },
        }),
        Match.objectLike({ Statement: { ManagedRuleGroupStatement: Match.objectLike({ Name: 'AWSManagedRulesKnownBadInputsRuleSet' }) } }),
      ]),
    });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { ResourceArn: Match.anyValue(), WebACLArn: Match.anyValue() });
  });
});

describe('background functions', () => {
  const { worker } = TEST_BACKGROUND_FUNCTIONS;
  let synthesized: Synthesized;
  beforeAll(async () => {
    synthesized = await sharedSynth('devTestBackgroundFunctions');
  }, SHARED_SYNTH_TIMEOUT_MS);
  afterAll(() => synthesized?.cleanup());

  const functionByDescription = (prefix: string) =>
    resourcesOfType(synthesized.template, 'AWS::Lambda::Function').find(([, fn]) => fn.Properties.Description === prefix)!;

  test('one entry makes a queue consumer that reports partial batch failures, with its grants and environment', () => {
    const [workerId, fn] = functionByDescription('SyncWorker: test worker');
    const template = Template.fromJSON(synthesized.template);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      BatchSize: 5,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['TABLE_NAME', 'EVENTS_TOPIC_ARN', 'BUCKET_NAME']),
    );
    // It delays retries by changing a message's visibility, so it knows the queue (without a send grant).
    expect(fn.Properties.Environment.Variables.SYNC_QUEUE_URL).toEqual({ Ref: expect.stringMatching(/^DataSyncQueue/) });
    expect(functionStatements(synthesized.template, workerId).flatMap((s) => [s.Action].flat())).not.toContain('sqs:SendMessage');
    const actions = functionStatements(synthesized.template, workerId).flatMap((s) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['sns:Publish', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 's3:GetObject']));
    expect(actions).not.toContain('s3:PutObject');
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  test('one entry makes a scheduled function', () => {
    const [sweeperId, fn] = functionByDescription('SyncSweeper: test sweeper');
    Template.fromJSON(synthesized.template).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } })],
    });
    expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(expect.arrayContaining(['TABLE_NAME', 'SYNC_QUEUE_URL']));
  });

  test('a queue consumer whose timeout does not fit six times into the visibility timeout is refused', () => {
    const slow = { ...worker, timeoutSeconds: resources.syncQueue.visibilityTimeoutSeconds / 6 + 1 };
    expect(() => withApp(NO_BUNDLING, { backgroundFunctions: [slow] }, () => undefined)).toThrow(/visibility timeout/);
  });
});

describe('app', () => {
  test('refuses an unknown stage', () => {
    expect(() => withApp({ ...NO_BUNDLING, stage: 'staging' }, {}, () => undefined)).toThrow(/unknown stage "staging"/);
  });

  test('cdk-nag is attached: an unacknowledged finding fails synthesis', () => {
    // Without CloudFormation's rules (P374): their engine would start in this worker for a template not under test.
    process.env.CDK_VALIDATION = 'false';
    let message: string;
    try {
      message = withApp(NO_BUNDLING, {}, ({ app, stack }) => {
        // A queue without a DLQ and without TLS enforcement: AwsSolutions-SQS3 and -SQS4.
        const queue = new Queue(stack, 'Noncompliant', { enforceSSL: false });
        Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'only SQS4 is under test' });
        try {
          app.synth();
          return '';
        } catch (error) {
          return (error as Error).message;
        }
      });
    } finally {
      delete process.env.CDK_VALIDATION;
    }
    expect(message).toContain('AwsSolutions-SQS4');
    expect(message).not.toContain('AwsSolutions-SQS3');
  });
});
