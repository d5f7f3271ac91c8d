/**
 * The Hiring Integration Service on AWS: one stack per stage, built from the route table, the table
 * definition and the resource settings the local runtime uses too.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { resources } from '#platform/resources.js';
import { allRoutes, type RouteDefinition } from '#http/routes.js';
import { backgroundFunctions, type BackgroundFunctionDefinition } from '#delivery/background-functions.js';
import { LargeBodyIngest } from './large-body-ingest.js';
import { applyNagSuppressions } from './nag-suppressions.js';
import { ServiceAlarms } from './service-alarms.js';
import { ServiceDashboard } from './service-dashboard.js';
import { ServiceApi } from './service-api.js';
import { ServiceData } from './service-data.js';
import { ServiceFunction } from './service-function.js';
import type { StageConfig } from './stage-config.js';

export interface ServiceStackProps extends StackProps {
  stage: StageConfig;
  /** Defaults to the route table; tests may pass their own. */
  routes?: readonly RouteDefinition[];
  /** Defaults to `backgroundFunctions`; tests may pass their own. */
  backgroundFunctions?: readonly BackgroundFunctionDefinition[];
}

export class ServiceStack extends Stack {
  readonly data: ServiceData;
  readonly api: ServiceApi;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  /** With `-c largeBodies=true` only (issue 15). */
  readonly largeBodies?: LargeBodyIngest;
  readonly backgroundFunctions = new Map<string, ServiceFunction>();
  /** The queue consumers among them. */
  readonly workers: ServiceFunction[] = [];

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { stage } = props;

    this.data = new ServiceData(this, 'Data', stage);
    this.api = new ServiceApi(this, 'Http', { stage, data: this.data, routes: props.routes ?? allRoutes });
    for (const definition of props.backgroundFunctions ?? backgroundFunctions) this.addBackgroundFunction(definition, stage);

    this.alarms = new ServiceAlarms(this, 'Alarms', {
      stage,
      api: this.api.api,
      authorizer: this.api.authorizerFunction,
      authorizerLogs: this.api.authorizerFunction.logGroup,
      deadLetterQueue: this.data.syncDeadLetterQueue,
      jobImportDeadLetterQueue: this.data.jobImportDeadLetterQueue,
      eventRelayDeadLetterQueue: this.data.eventRelayDeadLetterQueue,
      webhookDeadLetterQueue: this.data.webhookDeadLetterQueue,
      workers: this.workers,
    });

    this.dashboard = new ServiceDashboard(this, 'Dashboard', { stage, routes: props.routes ?? allRoutes });

    if (stage.largeBodies) {
      this.largeBodies = new LargeBodyIngest(this, 'LargeBodies', {
        stage,
        data: this.data,
        api: this.api.api,
        alarms: this.alarms,
        authorizerCacheTtl: stage.authorizerCacheTtl,
      });
      // Partners' one base URL: CloudFront in front of both the gateway and the ingest.
      new CfnOutput(this, 'PublicApiUrl', { value: `https://${this.largeBodies.distribution.distributionDomainName}/` });
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'EventsTopicArn', { value: this.data.eventsTopic.topicArn });
    // The admin tool's `company connect` seals credentials with this key (CREDENTIALS_KMS_KEY_ID).
    new CfnOutput(this, 'CredentialsKeyArn', { value: this.data.credentialsKey.keyArn });

    applyNagSuppressions(this);
  }

  private addBackgroundFunction(definition: BackgroundFunctionDefinition, stage: StageConfig): void {
    const timeoutSeconds = definition.timeoutSeconds ?? 30;
    const fn = new ServiceFunction(this, `${definition.id}Function`, {
      handlerModule: definition.handler,
      stage,
      description: `${definition.id}: ${definition.description}`,
      timeout: Duration.seconds(timeoutSeconds),
      ...(definition.memorySize ? { memorySize: definition.memorySize } : {}),
    });
    this.data.grant(fn, definition.access);
    // A function that e-mails links to the service (the external-apply follow-up, P206) builds them on the
    // service's public address, the gateway's own stage URL (API routes take theirs from the request).
    if (definition.access.email) fn.addEnvironment('PUBLIC_BASE_URL', this.api.stageUrl());
    const { trigger } = definition;
    if (trigger.kind === 'syncQueue') {
      this.workers.push(fn);
      // Lambda's guidance: a message must stay invisible through several retries of a batch.
      if (timeoutSeconds * 6 > resources.syncQueue.visibilityTimeoutSeconds) {
        throw new Error(`${definition.id}: timeout ${timeoutSeconds}s × 6 exceeds the sync queue's visibility timeout`);
      }
      // The worker delays a retry by changing the message's visibility, so it needs the queue's URL.
      fn.addEnvironment('SYNC_QUEUE_URL', this.data.syncQueue.queueUrl);
      fn.addEventSource(
        new SqsEventSource(this.data.syncQueue, {
          batchSize: trigger.batchSize,
          reportBatchItemFailures: true,
          ...(trigger.maxBatchingWindowSeconds ? { maxBatchingWindow: Duration.seconds(trigger.maxBatchingWindowSeconds) } : {}),
          ...(trigger.maxConcurrency ? { maxConcurrency: trigger.maxConcurrency } : {}),
        }),
      );
    } else if (trigger.kind === 'jobImportQueue') {
      this.workers.push(fn);
      if (timeoutSeconds * 6 > resources.jobImportQueue.visibilityTimeoutSeconds) {
        throw new Error(`${definition.id}: timeout ${timeoutSeconds}s × 6 exceeds the job import queue's visibility timeout`);
      }
      fn.addEventSource(
        new SqsEventSource(this.data.jobImportQueue, {
          batchSize: trigger.batchSize,
          reportBatchItemFailures: true,
          ...(trigger.maxConcurrency ? { maxConcurrency: trigger.maxConcurrency } : {}),
        }),
      );
    } else if (trigger.kind === 'outboxStream') {
      this.workers.push(fn);
      // P115, P240: only the outbox items' INSERTs and the writes of items carrying an event reach the relay; in
      // order per partition, from the first failure on retried (partial batch failures), and after the retries
      // to the DLQ (an outbox item stays for a replay; the relay parks an unpublished item-borne event there).
      fn.addEventSource(
        new DynamoEventSource(this.data.table, {
          startingPosition: StartingPosition.TRIM_HORIZON,
          batchSize: trigger.batchSize,
          ...(trigger.maxBatchingWindowSeconds ? { maxBatchingWindow: Duration.seconds(trigger.maxBatchingWindowSeconds) } : {}),
          retryAttempts: trigger.retryAttempts,
          reportBatchItemFailures: true,
          onFailure: new SqsDlq(this.data.eventRelayDeadLetterQueue),
          filters: trigger.filters.map((pattern) => FilterCriteria.filter(pattern)),
        }),
      );
    } else if (trigger.kind === 'webhookQueue') {
      this.workers.push(fn);
      if (timeoutSeconds * 6 > resources.webhookQueue.visibilityTimeoutSeconds) {
        throw new Error(`${definition.id}: timeout ${timeoutSeconds}s × 6 exceeds the webhook queue's visibility timeout`);
      }
      // The worker delays a retry by changing the message's visibility, and queues the fan-out's deliveries.
      fn.addEnvironment('WEBHOOK_QUEUE_URL', this.data.webhookQueue.queueUrl);
      fn.addEventSource(
        new SqsEventSource(this.data.webhookQueue, {
          batchSize: trigger.batchSize,
          reportBatchItemFailures: true,
          ...(trigger.maxConcurrency ? { maxConcurrency: trigger.maxConcurrency } : {}),
        }),
      );
    } else {
      new Rule(this, `${definition.id}Schedule`, {
        ruleName: `${stage.prefix}-${definition.id}`,
        schedule: Schedule.expression(trigger.expression),
        targets: [new LambdaFunction(fn, { retryAttempts: 2 })],
      });
    }
    this.backgroundFunctions.set(definition.id, fn);
  }
}
