/** Jest's global teardown: stops the run's DynamoDB Local JVMs (global-setup.mjs). */
export default async function globalTeardown() {
  await Promise.all((globalThis.__dynamoDbLocal ?? []).map((d) => d.stop()));
}
