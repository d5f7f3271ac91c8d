/**
 * The service's CloudWatch dashboard, from the metrics the functions write (Powertools Metrics, EMF;
 * `shared/platform/service-metrics.ts`, `shared/delivery/delivery-metrics.ts`): per route requests, latency,
 * 4xx/5xx and DynamoDB units; sync outcomes by ATS and failure_error; webhook deliveries by result; job import
 * runs by result with the jobs they changed. Route widgets name each route of the route table; the delivery
 * widgets use SEARCH expressions, so a new ATS, status or error appears without a deployment.
 */
import { Duration } from 'aws-cdk-lib';
import { Dashboard, GraphWidget, MathExpression, Metric, TextWidget, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { RouteDefinition } from '#http/routes.js';
import { SERVICE_NAME, metricsNamespace } from './service-function.js';
import type { StageConfig } from './stage-config.js';

export interface ServiceDashboardProps {
  stage: StageConfig;
  routes: readonly RouteDefinition[];
}

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const namespace = metricsNamespace(props.stage);
    const period = Duration.minutes(5);
    const routeMetric = (route: RouteDefinition, metricName: string, statistic: string) =>
      new Metric({ namespace, metricName, dimensionsMap: { service: SERVICE_NAME, route: route.id }, statistic, period, label: route.id });
    const perRoute = (title: string, metricName: string, statistic: string, unit = '') =>
      new GraphWidget({
        title,
        width: 12,
        left: props.routes.map((route) => routeMetric(route, metricName, statistic)),
        leftYAxis: { min: 0, ...(unit ? { label: unit, showUnits: false } : {}) },
      });
    const search = (label: string, dimensions: string[], metricName: string) =>
      new MathExpression({
        label,
        expression: `SEARCH('{${namespace},${['service', ...dimensions].join(',')}} MetricName="${metricName}" service="${SERVICE_NAME}"', 'Sum', ${period.toSeconds()})`,
        usingMetrics: {},
        period,
      });
    const widgets: IWidget[][] = [
      [
        new TextWidget({
          markdown: `# Hiring Integration Service (${props.stage.name})\nMetrics: docs/architecture.md, "Metrics and traces". Traces: X-Ray (the import worker and the connect form, one subsegment per ATS call).`,
          width: 24,
          height: 2,
        }),
      ],
      [perRoute('Requests per route', 'Requests', 'Sum'), perRoute('Latency per route (p95)', 'Latency', 'p95', 'ms')],
      [perRoute('4xx per route', 'Errors4xx', 'Sum'), perRoute('5xx per route', 'Errors5xx', 'Sum')],
      [
        perRoute('DynamoDB read units per route', 'DynamoDBReadUnits', 'Sum', 'RCU'),
        perRoute('DynamoDB write units per route', 'DynamoDBWriteUnits', 'Sum', 'WCU'),
      ],
      [
        new GraphWidget({
          title: 'Sync outcomes by ATS, status and failure_error',
          width: 12,
          left: [search('sync outcomes', ['ats', 'sync_status', 'failure_error'], 'SyncOutcomes')],
          leftYAxis: { min: 0 },
        }),
        new GraphWidget({
          title: 'Webhook deliveries by result',
          width: 12,
          left: [search('webhook deliveries', ['result'], 'WebhookDeliveries')],
          leftYAxis: { min: 0 },
        }),
      ],
      [
        new GraphWidget({
          title: 'Job import runs by result',
          width: 12,
          left: [search('job import runs', ['result'], 'JobImportRuns')],
          leftYAxis: { min: 0 },
        }),
        new GraphWidget({
          title: 'Jobs changed by import runs',
          width: 12,
          left: ['JobsCreated', 'JobsUpdated', 'JobsArchived'].map((metricName) => search(metricName, ['result'], metricName)),
          leftYAxis: { min: 0 },
        }),
      ],
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: `${props.stage.prefix}-service`, widgets });
  }
}
