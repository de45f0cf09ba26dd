import fc from 'fast-check';

/**
 * fast-check arbitraries from the request schemas of the OpenAPI document (JSON Schema 2020-12),
 * for the generated suite (test/integration/generated-requests.test.ts). It covers the keywords
 * the document uses in requests; an unknown one fails loudly, so a new kind of rule cannot be
 * silently ignored by the generator. `examples` are mixed in so that generated requests also
 * reach the success paths, not only refusals.
 */
export type Schema = Record<string, unknown>;

const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'const',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'default',
  'description',
  'examples',
  'title',
  '$ref',
]);

export function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = components[name];
  if (target === undefined) throw new Error(`unresolved ${ref}`);
  return target;
}

const URI_HOSTS = ['example.com', 'merchant.example.org', 'hooks.example.net'];

function formatArbitrary(format: string, schema: Schema): fc.Arbitrary<string> | undefined {
  switch (format) {
    case 'uri':
      return fc
        .tuple(fc.constantFrom(...URI_HOSTS), fc.stringMatching(/^[a-z0-9/_-]{0,40}$/))
        .map(([host, path]) => `https://${host}/${path}`)
        .filter((u) => u.length <= ((schema['maxLength'] as number | undefined) ?? Infinity));
    case 'date-time':
      return fc
        .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2035-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'email':
      return undefined; // the e-mail's pattern says it exactly
    default:
      throw new Error(`no generator for format ${format}`);
  }
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength = (schema['minLength'] as number | undefined) ?? 0;
  const maxLength = Math.min((schema['maxLength'] as number | undefined) ?? 200, 200);
  const fits = (s: string) =>
    [...s].length >= minLength && [...s].length <= ((schema['maxLength'] as number | undefined) ?? Infinity);
  if (typeof schema['format'] === 'string') {
    const byFormat = formatArbitrary(schema['format'], schema);
    if (byFormat !== undefined) return byFormat;
  }
  if (typeof schema['pattern'] === 'string') {
    return fc.stringMatching(new RegExp(schema['pattern'], 'u')).filter(fits);
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' }).filter(fits);
}

function numberArbitrary(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = schema['exclusiveMinimum'] as number | undefined;
  const min = (schema['minimum'] as number | undefined) ?? (exclusiveMin === undefined ? -1e6 : exclusiveMin);
  const max = (schema['maximum'] as number | undefined) ?? 1e12;
  if (integer) {
    const lo = Math.ceil(exclusiveMin === undefined ? min : exclusiveMin + 1);
    return fc.integer({ min: Math.max(lo, Number.MIN_SAFE_INTEGER), max: Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER) });
  }
  // Money-like numbers: whole amounts and amounts with cents, as a client sends them.
  const floor = exclusiveMin === undefined ? min : exclusiveMin;
  return fc
    .oneof(
      fc.integer({ min: Math.max(Math.ceil(floor) + 1, 1), max: 10_000_000 }),
      fc.integer({ min: 1, max: 1_000_000_00 }).map((cents) => cents / 100),
      fc.double({ min: floor, max, noNaN: true, noDefaultInfinity: true }),
    )
    .filter((n) => (exclusiveMin === undefined ? n >= min : n > exclusiveMin) && n <= max);
}

export function arbitraryOf(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, components);
  for (const key of Object.keys(s)) if (!HANDLED.has(key)) throw new Error(`no generator for keyword ${key}`);
  const generated = arbitraryOfResolved(s, components, depth);
  const examples = Array.isArray(s['examples']) ? (s['examples'] as unknown[]) : [];
  if (examples.length > 0 && typeof s['description'] === 'string' && /\bUnique\b/.test(s['description'])) {
    // A value the document says must be unique (reference_no): the example made unique, not repeated.
    const made = fc
      .tuple(fc.constantFrom(...examples), fc.integer({ min: 0, max: 2 ** 30 }))
      .map(([example, n]) => `${String(example)}-${n}`);
    return fc.oneof({ arbitrary: made, weight: 2 }, { arbitrary: generated, weight: 1 });
  }
  return examples.length === 0
    ? generated
    : fc.oneof({ arbitrary: fc.constantFrom(...examples), weight: 2 }, { arbitrary: generated, weight: 1 });
}

function arbitraryOfResolved(s: Schema, components: Record<string, Schema>, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
  if ('const' in s) return fc.constant(s['const']);
  const types = ([] as unknown[]).concat(s['type'] ?? 'string') as string[];
  const options = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return numberArbitrary(s, true);
      case 'number':
        return numberArbitrary(s, false);
      case 'string':
        return stringArbitrary(s);
      case 'array': {
        const items = arbitraryOf((s['items'] as Schema | undefined) ?? {}, components, depth + 1);
        const minLength = (s['minItems'] as number | undefined) ?? 0;
        const maxLength = Math.min((s['maxItems'] as number | undefined) ?? 5, 5, Math.max(minLength, 5));
        return s['uniqueItems'] === true
          ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength, maxLength });
      }
      case 'object':
        return objectArbitrary(s, components, depth);
      default:
        throw new Error(`no generator for type ${type}`);
    }
  });
  return options.length === 1 ? (options[0] as fc.Arbitrary<unknown>) : fc.oneof(...options);
}

const ABSENT = Symbol('absent');

function objectArbitrary(s: Schema, components: Record<string, Schema>, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (s['properties'] as Record<string, Schema> | undefined) ?? {};
  const required = new Set((s['required'] as string[] | undefined) ?? []);
  const known: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(properties)) known[name] = arbitraryOf(prop, components, depth + 1);
  // Optional fields are left out two times in three: a client sends few of them, and each one
  // that is present is one more way for the request to be refused (the walks need successes too).
  const record = fc
    .record(
      Object.fromEntries(
        Object.entries(known).map(([name, arb]) => [
          name,
          required.has(name) ? arb : fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 2 }, { arbitrary: arb, weight: 1 }),
        ]),
      ),
    )
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== ABSENT)));
  const extra = s['additionalProperties'];
  if (extra === undefined || extra === false || extra === true || Object.keys(properties).length > 0 || depth > 2) return record;
  // A map (metadata): keys from propertyNames, values from additionalProperties.
  const names = s['propertyNames'] as Schema | undefined;
  const keyArb = names === undefined ? fc.stringMatching(/^[a-z_]{1,20}$/) : stringArbitrary(names);
  const maxKeys = Math.min((s['maxProperties'] as number | undefined) ?? 5, 5);
  return fc.dictionary(keyArb, arbitraryOf(extra as Schema, components, depth + 1) as fc.Arbitrary<unknown>, {
    maxKeys,
    noNullPrototype: true,
  });
}
