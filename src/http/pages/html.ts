/**
 * Escape-by-default HTML templates for the server-rendered pages. Every interpolated value is
 * escaped for both text and attribute context unless it is already `SafeHtml` (the output of
 * another `html` template or of a renderer we trust, such as the QR encoder). There is no other
 * way to put text into a page, so forgetting to escape cannot happen.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Trusted markup produced by our own code (never by input): the one way to bypass escaping. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/**
 * A link target we are willing to put into `href`. Provider-supplied URLs are data, not code: a
 * `javascript:` or `data:` URL would run script on our origin (CSP blocks it too; this is the
 * first line). Checkout pages must be http(s); app deep links may use the wallet's own scheme.
 */
export function safeHref(url: string, kind: 'web' | 'app'): string | undefined {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  if (scheme === undefined) return undefined;
  if (kind === 'web') return scheme === 'https' || scheme === 'http' ? url : undefined;
  return ['javascript', 'data', 'vbscript', 'file', 'blob', 'about'].includes(scheme) ? undefined : url;
}

/**
 * A whole page of ours: never indexed, its referrer policy chosen per page (the payer page sends
 * none: its URL is a capability; the dashboard's own forms need `same-origin` for their Origin
 * check), the page's hashed style and anything else its head needs. `lang` is the BCP 47 tag of
 * the page's language (`htmlLang` of http/pages/locale.ts for the payer pages), English if absent.
 */
export function htmlDocument(o: {
  title: string;
  lang?: string;
  referrer: 'no-referrer' | 'same-origin';
  head: SafeHtml | string;
  body: SafeHtml;
}): string {
  return html`<!doctype html>
    <html lang="${o.lang ?? 'en'}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <meta name="referrer" content="${o.referrer}" />
        <title>${o.title}</title>
        ${o.head}
      </head>
      <body>
        ${o.body}
      </body>
    </html> `.value;
}
