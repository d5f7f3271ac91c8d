/** Baseline of `npm run bench:cold`: a handler that does nothing, bundled like every function. */
export const handler = async () => ({ statusCode: 200, body: 'hello' });
