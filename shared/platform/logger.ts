/** The structured logger (Powertools). Never give it personal data: ids, statuses and counts only. */
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'hiring-integration-service',
  logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO',
});
