/**
 * Walking a list: the first page is requested with the caller's query, every further page by following the
 * response's `next` link (an absolute URL that keeps the query and carries an opaque cursor) until it is
 * null. `for await (const job of list)` yields the records; `for await (const page of list.pages())` the pages.
 */
import { HiringClientError } from './errors.js';
import type { Page } from './types.js';

export type PageFetcher<T> = (next: string | undefined) => Promise<Page<T>>;

export class PageIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: PageFetcher<T>) {}

  /** Each page, in order; the walk starts again for every call. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    const seen = new Set<string>();
    let next: string | undefined;
    for (;;) {
      const page = await this.fetchPage(next);
      yield page;
      if (page.next === null || page.results.length === 0) return;
      if (seen.has(page.next)) throw new HiringClientError(`The API sent a next link already followed; stopping the walk.`);
      seen.add(page.next);
      next = page.next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.results;
  }

  /** Every record of every page in one array (mind the size of what the query matches). */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
