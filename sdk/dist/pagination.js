/** Auto-pagination stops with this error rather than loop: a page must move the cursor forward. */
const MAX_PAGES = 100_000;
/**
 * What `list()` returns: a Promise of the first page (`{data, has_more, next_cursor}`) that is
 * also an async iterable: `for await` yields every item of every page, fetching the next page by
 * its cursor (`starting_after`) only when the previous one is used up. The first page is asked
 * for at once, as with any promise-returning call.
 */
export class ListRequest extends Promise {
    // `then`/`catch` build plain Promises, not further ListRequests.
    static get [Symbol.species]() {
        return Promise;
    }
    #fetchPage;
    constructor(fetchPage) {
        let settle;
        super((resolve, reject) => {
            settle = { resolve, reject };
        });
        this.#fetchPage = fetchPage;
        fetchPage(undefined).then(settle.resolve, settle.reject);
    }
    async *[Symbol.asyncIterator]() {
        let page = await this;
        let previous;
        for (let pages = 1;; pages += 1) {
            yield* page.data;
            const cursor = nextCursor(page);
            if (cursor === undefined)
                return;
            if (cursor === previous || pages >= MAX_PAGES)
                throw new Error(`Tributary: the list did not advance past ${cursor}`);
            previous = cursor;
            page = await this.#fetchPage(cursor);
        }
    }
    /** Every item, up to `limit` (required, so a large account cannot fill memory by accident). */
    async toArray(options) {
        if (!Number.isInteger(options.limit) || options.limit < 1)
            throw new TypeError('Tributary: toArray needs a positive integer limit');
        const items = [];
        for await (const item of this) {
            items.push(item);
            if (items.length >= options.limit)
                break;
        }
        return items;
    }
}
function nextCursor(page) {
    if (!page.has_more)
        return undefined;
    if (typeof page.next_cursor === 'string')
        return page.next_cursor;
    const last = page.data.at(-1);
    return typeof last?.id === 'string' ? last.id : undefined;
}
