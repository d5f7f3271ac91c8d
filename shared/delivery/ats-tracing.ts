/**
 * Powertools Tracer (X-Ray) for the functions that call ATSs: the handler as a `## <name>` subsegment, and
 * every ATS call (`atsFetch`) as one subsegment named `ats:<slug>`, never by its URL (Lever's key is a query
 * parameter, and paths carry ids). Subsegments carry only the ATS slug, the HTTP status and the error, fault
 * and throttle flags: no URL, no error message, no personal data.
 *
 * Importing this module bundles the X-Ray SDK (about 100 kB): only the functions that trace import it and call
 * `traceAtsCalls()`; the rest keep `atsFetch`'s plain default (docs/architecture.md, "Metrics and traces").
 * Tracing is on inside Lambda (the stack turns on active tracing) and off elsewhere, or with
 * `POWERTOOLS_TRACE_ENABLED=false`: then every wrapper just calls through.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import type { Context } from 'aws-lambda';
import { atsDimension } from '#delivery/delivery-metrics.js';
import { setAtsCallWrapper } from '#delivery/connectors/http.js';

/** Automatic capture of HTTP(S) requests is off: it would name subsegments by host and record full URLs. */
export const tracer = new Tracer({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'hiring-integration-service',
  captureHTTPsRequests: false,
});

/** The subsegment name of a call to an ATS: its registered slug (`other` for anything else). */
export const atsSubsegmentName = (ats: string) => `ats:${atsDimension(ats)}`;

/** Makes every ATS call of this process one subsegment of the current (sub)segment. */
export function traceAtsCalls(): void {
  setAtsCallWrapper(async (ats, call) => {
    const parent = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
    if (!parent) return call();
    const subsegment = parent.addNewSubsegment(atsSubsegmentName(ats));
    subsegment.addAnnotation('ats', atsDimension(ats));
    try {
      const response = await call();
      subsegment.addAnnotation('http_status', response.status);
      if (response.status === 429) subsegment.addThrottleFlag();
      if (response.status >= 500) subsegment.addFaultFlag();
      else if (response.status >= 400) subsegment.addErrorFlag();
      return response;
    } catch (error) {
      // A timeout or network error: flagged, without its message (it may name the host).
      subsegment.addFaultFlag();
      throw error;
    } finally {
      subsegment.close();
    }
  });
}

/**
 * A Lambda handler run inside a `## <name>` subsegment annotated with ColdStart and Service (what
 * Powertools' `captureLambdaHandler` does, without middy and without recording responses or error messages).
 */
export function traced<E, R>(name: string, handler: (event: E, context: Context) => Promise<R>) {
  return async (event: E, context: Context): Promise<R> => {
    const segment = tracer.isTracingEnabled() ? tracer.getSegment() : undefined;
    if (!segment) return handler(event, context);
    const subsegment = segment.addNewSubsegment(`## ${name}`);
    tracer.setSegment(subsegment);
    tracer.annotateColdStart();
    tracer.addServiceNameAnnotation();
    try {
      return await handler(event, context);
    } catch (error) {
      subsegment.addFaultFlag();
      throw error;
    } finally {
      subsegment.close();
      tracer.setSegment(segment);
    }
  };
}
