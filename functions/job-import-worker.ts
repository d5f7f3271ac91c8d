/**
 * The job import worker, fed by the job import queue (one message per company). A failed run is counted
 * and final (the next scheduled run is the retry); only unexpected errors (storage) fail the message,
 * which then comes back and, after the queue's maxReceiveCount, goes to its DLQ.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { traceAtsCalls, traced } from '#delivery/ats-tracing.js';
import { importFromMessage, type JobImportMessage } from '#delivery/job-import.js';
import { logger } from '#platform/logger.js';

const processor = new BatchProcessor(EventType.SQS);
// Each ATS call of a run is an X-Ray subsegment named by the ATS.
traceAtsCalls();

async function handleRecord(record: SQSRecord): Promise<void> {
  const message = JSON.parse(record.body) as Partial<JobImportMessage>;
  if (!Number.isSafeInteger(message.company_id) || Number(message.company_id) < 1) throw new Error('not a job import message');
  const result = await importFromMessage({ company_id: Number(message.company_id) });
  logger.info('job import run', { companyId: message.company_id, ...result });
}

export const handler = traced('JobImportWorker', async (event: SQSEvent, context: Context) =>
  processPartialResponse(event, handleRecord, processor, { context, throwOnFullBatchFailure: false }),
);
