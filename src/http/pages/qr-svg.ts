import QRCode from 'qrcode';
import { escapeHtml, trusted, type SafeHtml } from './html.ts';

/**
 * A QR code as inline SVG, rendered here: no external service or CDN ever sees the payment's QR
 * payload, and the page needs no image requests (its CSP allows none). The encoder only emits
 * path geometry, never the payload text, so its output is safe to inline.
 *
 * Returns undefined when the payload cannot be encoded (longer than a QR code holds); the page
 * then shows the checkout link only.
 */
export async function qrSvg(payload: string, label: string): Promise<SafeHtml | undefined> {
  try {
    const svg = await QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, width: 240 });
    const start = svg.indexOf('<svg ');
    if (start === -1) return undefined;
    const labelled = `${svg.slice(0, start + 5)}role="img" aria-label="${escapeHtml(label)}" ${svg.slice(start + 5)}`;
    return trusted(labelled.trim());
  } catch {
    return undefined;
  }
}
