import type { FastifyInstance } from 'fastify';

/**
 * The methods each registered path answers, so that a known path asked with another method gets
 * 405 with `Allow` (RFC 9110 §15.5.6) instead of a 404 that says the path does not exist. Fastify's
 * router only says "no route"; this table, filled as routes are added, says which methods would
 * have matched. Patterns are matched on the raw path, as the router does (`:param` is one segment).
 */
export interface AllowedMethods {
  /** The methods of the routes whose pattern matches `path` (empty: the path is unknown). */
  of(path: string): string[];
}

function patternOf(url: string): RegExp {
  const source = url
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => {
      if (part === '*') return '.*';
      if (part.startsWith(':')) return '[^/]+';
      return part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

export function trackAllowedMethods(app: FastifyInstance): AllowedMethods {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  app.addHook('onRoute', (route) => {
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    if (entry.methods.has('GET')) entry.methods.add('HEAD');
    routes.set(route.url, entry);
  });
  return {
    of(path) {
      const methods = new Set<string>();
      for (const { pattern, methods: m } of routes.values()) if (pattern.test(path)) for (const x of m) methods.add(x);
      return [...methods].sort();
    },
  };
}
