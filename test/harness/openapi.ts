import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TestApp } from './test-app.ts';

const addFormats = addFormatsModule.default;

/**
 * Validators for the components of the served OpenAPI document, so responses are checked against
 * what we publish rather than against our own view code. The whole document is registered, so
 * `#/components/schemas/…` references between components resolve.
 */
export async function openApiValidators(t: TestApp): Promise<(component: string) => (value: unknown) => boolean> {
  const doc = JSON.parse((await t.call('GET', '/openapi.json', { key: null })).body) as object;
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
  return (component) => {
    const validate = ajv.getSchema(`openapi#/components/schemas/${component}`);
    if (validate === undefined) throw new Error(`no component ${component} in the OpenAPI document`);
    return (value) => validate(value) === true;
  };
}
