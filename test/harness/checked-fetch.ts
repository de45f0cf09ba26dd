import assert from 'node:assert/strict';
import { loadOpenApiText } from '../../scripts/gen-sdk-types.ts';
import { type ContractDocument, contractFor, type ResponseContract } from './response-contract.ts';

/**
 * The published contract for answers of real server processes (response-contract.ts): the
 * document the first server asked serves (one cheap GET, so timing-sensitive scenarios are not
 * slowed), else the one the code builds (an app without a server: seconds of CPU), once per test
 * process.
 */
let contract: Promise<ResponseContract> | undefined;
export function publishedContract(baseUrl?: string): Promise<ResponseContract> {
  contract ??= (async () => {
    let text: string | undefined;
    if (baseUrl !== undefined) {
      try {
        const res = await fetch(`${baseUrl}/openapi.json`, { signal: AbortSignal.timeout(5_000) });
        if (res.ok) text = await res.text();
      } catch {
        // the server is down or busy (a fault scenario): build the document instead
      }
    }
    const doc = JSON.parse(text ?? (await loadOpenApiText())) as ContractDocument;
    return contractFor(() => doc);
  })();
  return contract;
}

/** `fetch` to a Tributary process, whose answer must be one the document describes. */
export async function contractFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const target = new URL(url);
  const problems = (await publishedContract(target.origin)).check({
    method: init.method ?? 'GET',
    url: `${target.pathname}${target.search}`,
    status: res.status,
    headers: Object.fromEntries(res.headers.entries()),
    body: await res.clone().text(),
  });
  assert.deepEqual(problems, [], `an answer the OpenAPI document does not describe:\n${problems.join('\n')}`);
  return res;
}
