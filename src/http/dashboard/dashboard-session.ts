import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_MAX_AGE_MS } from '../../modules/team/index.ts';

/**
 * The session cookie and the request-origin checks of the dashboard (docs/dashboard.md).
 *
 * The cookie holds an opaque random token: HttpOnly (no script can read it), SameSite=Strict (no
 * other site's page can make the browser send it), and Secure with the `__Host-` prefix when the
 * dashboard is served over https (PUBLIC_BASE_URL https://…, or a TLS request), which also pins it
 * to our host and path `/`. Over plain http (a laptop) it is scoped to `/dashboard`.
 */
const SECURE_NAME = '__Host-tributary_dashboard';
const PLAIN_NAME = 'tributary_dashboard';

export function isSecureRequest(request: FastifyRequest, publicBaseUrl: string): boolean {
  return publicBaseUrl.startsWith('https://') || request.protocol === 'https';
}

function cookieName(secure: boolean): string {
  return secure ? SECURE_NAME : PLAIN_NAME;
}

/** The session token the browser sent, if any (the first cookie of our name). */
export function sessionTokenOf(request: FastifyRequest, publicBaseUrl: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  const name = cookieName(isSecureRequest(request, publicBaseUrl));
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  const attributes = [
    `${cookieName(secure)}=${value}`,
    secure ? 'Path=/' : 'Path=/dashboard',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ];
  return attributes.join('; ');
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, publicBaseUrl: string, token: string): void {
  reply.header('Set-Cookie', cookie(isSecureRequest(request, publicBaseUrl), token, Math.floor(SESSION_MAX_AGE_MS / 1000)));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, publicBaseUrl: string): void {
  reply.header('Set-Cookie', cookie(isSecureRequest(request, publicBaseUrl), '', 0));
}

/**
 * A state-changing request must come from one of our own pages. Browsers send `Origin` on every
 * POST and `Sec-Fetch-Site` on every request; a request naming another origin, or marked
 * cross-site, is refused before any work (a second wall behind SameSite=Strict and the CSRF token;
 * it also protects the login form, which has no session yet).
 */
export function sameOriginProblem(request: FastifyRequest, publicBaseUrl: string): string | undefined {
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && fetchSite !== 'same-origin' && fetchSite !== 'none') {
    return 'The request came from another site.';
  }
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return undefined;
  // An opaque origin (a sandboxed frame, a privacy setting) proves nothing: only a browser's own
  // same-origin marker lets it through.
  if (origin === 'null') return fetchSite === 'same-origin' ? undefined : 'The request came from an unknown origin.';
  const allowed = new Set([new URL(publicBaseUrl).origin, `${request.protocol}://${request.host}`]);
  return allowed.has(origin) ? undefined : 'The request came from another origin.';
}
