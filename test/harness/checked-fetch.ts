import assert from 'node:assert/strict';
import { loadOpenApiText } from '../../scripts/gen-sdk-types.ts';
import { type ContractDocument, contractFor, type ResponseContract } from './response-contract.ts';

/**
 * The published contract for answers of real server processes (response-contract.ts): the
 * document is the one the code serves, built once per test process without a server.
 */
let contract: Promise<ResponseContract> | undefined;
export function publishedContract(): Promise<ResponseContract> {
  contract ??= loadOpenApiText().then((text) => {
    const doc = JSON.parse(text) as ContractDocument;
    return contractFor(() => doc);
  });
  return contract;
}

/** `fetch` to a Tributary process, whose answer must be one the document describes. */
export async function contractFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  const target = new URL(url);
  const problems = (await publishedContract()).check({
    method: init.method ?? 'GET',
    url: `${target.pathname}${target.search}`,
    status: res.status,
    headers: Object.fromEntries(res.headers.entries()),
    body: await res.clone().text(),
  });
  assert.deepEqual(problems, [], `an answer the OpenAPI document does not describe:\n${problems.join('\n')}`);
  return res;
}
