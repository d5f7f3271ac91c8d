/** Jest's global teardown: stops the run's DynamoDB Local (global-setup.mjs). */
export default async function globalTeardown() {
  await globalThis.__dynamoDbLocal?.stop();
}
