/**
 * The service's CloudWatch metrics (Powertools Metrics, embedded metric format): every function writes each
 * measurement as one EMF document on stdout, which CloudWatch Logs turns into metrics. What is measured is
 * listed in docs/architecture.md ("Metrics and traces").
 *
 * On when `POWERTOOLS_METRICS_NAMESPACE` is set (the stack sets it on every function) and
 * `POWERTOOLS_METRICS_DISABLED` is not `true`; otherwise (`npm start`, the tests, the admin tool) nothing is
 * written and no Metrics instance is made.
 *
 * Each call emits one document with its own dimensions at once, synchronously: a Lambda instance may be
 * frozen after the invocation, and a batch of queue records (or the local runtime's concurrent requests)
 * must not mix one record's dimensions into another's metrics. Dimension values are never personal data:
 * only values from closed sets (route ids, ATS ids, statuses, error names); anything else a caller passes
 * becomes `other`.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RequestMetrics } from '#platform/request-metrics.js';

export type MetricUnitName = 'Count' | 'Milliseconds';

export interface Measurement {
  name: string;
  unit: MetricUnitName;
  value: number;
}

let instance: { namespace: string; metrics: Metrics } | undefined;

/** Whether metrics are written in this process now (read from the environment on each call). */
export function metricsEnabled(): boolean {
  return !!process.env.POWERTOOLS_METRICS_NAMESPACE && process.env.POWERTOOLS_METRICS_DISABLED?.toLowerCase() !== 'true';
}

function metrics(): Metrics | undefined {
  if (!metricsEnabled()) return undefined;
  const namespace = process.env.POWERTOOLS_METRICS_NAMESPACE!;
  if (instance?.namespace !== namespace) {
    instance = {
      namespace,
      metrics: new Metrics({ namespace, serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'hiring-integration-service' }),
    };
  }
  return instance.metrics;
}

/** A dimension value as emitted: a short identifier-like string, else `other` (never free text). */
export function dimensionValue(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return 'none';
  return /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : 'other';
}

/** Emits the measurements as one EMF document with exactly these dimensions (plus `service`). */
export function emitMetrics(dimensions: Readonly<Record<string, string | null | undefined>>, measurements: readonly Measurement[]): void {
  const target = metrics();
  if (!target || !measurements.length) return;
  for (const [name, value] of Object.entries(dimensions)) target.addDimension(name, dimensionValue(value));
  for (const m of measurements) target.addMetric(m.name, MetricUnit[m.unit], m.value);
  target.publishStoredMetrics();
}

/** One request of a route: count, latency, 4xx/5xx (0 or 1, so their average is the rate) and DynamoDB units. */
export function recordRequest(route: string, statusCode: number, latencyMs: number, dynamodb: RequestMetrics | undefined): void {
  emitMetrics({ route }, [
    { name: 'Requests', unit: 'Count', value: 1 },
    { name: 'Latency', unit: 'Milliseconds', value: latencyMs },
    { name: 'Errors4xx', unit: 'Count', value: statusCode >= 400 && statusCode < 500 ? 1 : 0 },
    { name: 'Errors5xx', unit: 'Count', value: statusCode >= 500 ? 1 : 0 },
    { name: 'DynamoDBReadUnits', unit: 'Count', value: dynamodb?.readUnits ?? 0 },
    { name: 'DynamoDBWriteUnits', unit: 'Count', value: dynamodb?.writeUnits ?? 0 },
  ]);
}
