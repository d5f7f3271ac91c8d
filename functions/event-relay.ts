/**
 * The outbox relay (P115), fed by the table's DynamoDB stream through an event-source mapping that passes
 * only outbox INSERTs, with ReportBatchItemFailures and an on-failure destination (the events DLQ).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { relayStreamRecords } from '#delivery/event-relay.js';

export const handler = async (event: DynamoDBStreamEvent) => relayStreamRecords(event.Records);
