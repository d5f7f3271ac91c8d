/**
 * The alarms an operator is paged for, all sent to one topic to subscribe to: the API failing (5xx rate),
 * applications stuck in the dead-letter queue, the authorizer failing (every request would be a 401/500),
 * and the sync worker failing.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData, type IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { StageConfig } from './stage-config.js';

export interface ServiceAlarmsProps {
  stage: StageConfig;
  api: RestApi;
  authorizer: IFunction;
  authorizerLogs: ILogGroup;
  deadLetterQueue: IQueue;
  /** The job import queue's DLQ: imports that failed unexpectedly three times (D14). */
  jobImportDeadLetterQueue?: IQueue;
  /** The event relay's DLQ: stream batches whose events could not be published after the retries (P115). */
  eventRelayDeadLetterQueue?: IQueue;
  /** The webhook queue's DLQ: deliveries that failed through their whole retry schedule (D19). */
  webhookDeadLetterQueue?: IQueue;
  /** Queue and stream consumers (workers, event relay): a function error there means a batch failed as a whole. */
  workers: IFunction[];
}

/** Percent of requests answered with a 5xx over five minutes that pages someone. */
export const API_5XX_PERCENT_THRESHOLD = 5;

export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: IAlarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { stage } = props;
    // Unencrypted on purpose: CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key,
    // and alarm notifications carry alarm names and states only.
    this.topic = new Topic(this, 'Topic', { topicName: `${stage.prefix}-alarms`, enforceSSL: true });
    const action = new SnsAction(this.topic);
    const period = Duration.minutes(5);

    const api5xxRate = new MathExpression({
      label: 'API 5xx rate (%)',
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: props.api.metricServerError({ period, statistic: 'Sum' }),
        requests: props.api.metricCount({ period, statistic: 'Sum' }),
      },
      period,
    });
    this.add(
      new Alarm(this, 'Api5xxRate', {
        alarmName: `${stage.prefix}-api-5xx-rate`,
        alarmDescription: `More than ${API_5XX_PERCENT_THRESHOLD}% of API requests answered with a 5xx`,
        metric: api5xxRate,
        threshold: API_5XX_PERCENT_THRESHOLD,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      action,
    );

    this.add(
      new Alarm(this, 'SyncDeadLetters', {
        alarmName: `${stage.prefix}-sync-dlq-depth`,
        alarmDescription: 'Applications whose ATS sync exhausted its retries wait in the dead-letter queue',
        metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      action,
    );

    if (props.jobImportDeadLetterQueue) {
      this.add(
        new Alarm(this, 'JobImportDeadLetters', {
          alarmName: `${stage.prefix}-job-import-dlq-depth`,
          alarmDescription: 'Job import runs that failed unexpectedly (not ATS failures, which are counted on the company) wait in the DLQ',
          metric: props.jobImportDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        action,
      );
    }

    if (props.eventRelayDeadLetterQueue) {
      this.add(
        new Alarm(this, 'EventRelayDeadLetters', {
          alarmName: `${stage.prefix}-event-relay-dlq-depth`,
          alarmDescription: 'Events that the relay could not publish after its retries: their outbox items wait for a replay (P115)',
          metric: props.eventRelayDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        action,
      );
    }

    if (props.webhookDeadLetterQueue) {
      this.add(
        new Alarm(this, 'WebhookDeadLetters', {
          alarmName: `${stage.prefix}-webhook-dlq-depth`,
          alarmDescription: 'Webhook deliveries that failed through their whole retry schedule (over 24 h) wait in the DLQ',
          metric: props.webhookDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        action,
      );
    }

    // A denial is a thrown "Unauthorized" (the only way to make API Gateway answer 401), so it counts as a
    // Lambda error; the authorizer logs each denial at INFO, and those are subtracted to leave real failures.
    const denials = new MetricFilter(this, 'AuthorizerDenials', {
      logGroup: props.authorizerLogs,
      metricNamespace: `HiringIntegrationService/${stage.name}`,
      metricName: 'AuthorizerDenials',
      filterPattern: FilterPattern.stringValue('$.message', '=', 'authorization denied'),
      metricValue: '1',
      defaultValue: 0,
    });
    const authorizerFailures = new MathExpression({
      label: 'Authorizer failures (errors that are not denials)',
      expression: 'errors - FILL(denials, 0)',
      usingMetrics: {
        errors: props.authorizer.metricErrors({ period, statistic: 'Sum' }),
        denials: denials.metric({ period, statistic: 'Sum' }),
      },
      period,
    });
    this.add(
      new Alarm(this, 'AuthorizerErrors', {
        alarmName: `${stage.prefix}-authorizer-errors`,
        alarmDescription: 'The authorizer function failed (denied keys do not count)',
        metric: authorizerFailures,
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      action,
    );
    this.addWorkerAlarms(props, action);
  }

  private addWorkerAlarms(props: ServiceAlarmsProps, action: SnsAction): void {
    for (const worker of props.workers) {
      this.add(
        new Alarm(this, `${worker.node.id}Errors`, {
          alarmName: `${props.stage.prefix}-${worker.node.id.replace(/Function$/, '')}-errors`,
          alarmDescription: 'A queue or stream consumer failed (crash or timeout); the failed batch comes back and may reach its DLQ',
          metric: worker.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        action,
      );
    }
  }

  /** Sends an alarm defined elsewhere (the large-body ingest's) to the same topic, for alarm and recovery. */
  watch(alarm: Alarm): void {
    this.add(alarm, new SnsAction(this.topic));
  }

  private add(alarm: Alarm, action: SnsAction): void {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
  }
}
