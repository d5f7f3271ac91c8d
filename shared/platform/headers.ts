/** Request headers, whose names are case-insensitive (the authorizer and every route read them). */
import type { APIGatewayProxyEvent } from 'aws-lambda';

export function header(event: Pick<APIGatewayProxyEvent, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) if (key.toLowerCase() === wanted) return value ?? undefined;
  return undefined;
}
