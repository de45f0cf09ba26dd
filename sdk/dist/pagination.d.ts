import type { WithResponse } from './http.ts';
/** The envelope every paged list of the API shares. */
export interface ListPage<Item> {
    object: 'list';
    data: Item[];
    has_more: boolean;
    /** Present on id-cursor lists (payments, settlements, …); others page by the last item's id. */
    next_cursor?: string | null;
}
/**
 * What `list()` returns: a Promise of the first page (`{data, has_more, next_cursor}`) that is
 * also an async iterable: `for await` yields every item of every page, fetching the next page by
 * its cursor (`starting_after`) only when the previous one is used up. The first page is asked
 * for at once, as with any promise-returning call.
 */
export declare class ListRequest<Item, Page extends ListPage<Item>> extends Promise<WithResponse<Page>> implements AsyncIterable<Item> {
    #private;
    static get [Symbol.species](): PromiseConstructor;
    constructor(fetchPage: (startingAfter: string | undefined) => Promise<WithResponse<Page>>);
    [Symbol.asyncIterator](): AsyncIterator<Item>;
    /** Every item, up to `limit` (required, so a large account cannot fill memory by accident). */
    toArray(options: {
        limit: number;
    }): Promise<Item[]>;
}
