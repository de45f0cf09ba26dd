import type { LinkAvailability } from '../../modules/payment-links/index.ts';
import type { Locale } from './locale.ts';

/** Every word of the payment-link page (`link-page.ts`), per language. */
export interface LinkPageMessages {
  title: string;
  enterAmount: string;
  between: (min: string, max: string) => string;
  continue: string;
  unavailable: Record<Exclude<LinkAvailability, 'available'>, { title: string; detail: (merchant: string) => string }>;
  /** Why a visit was refused, by the catalogue code and field issue it answered. */
  refused: (code: string, issue: string | undefined, bounds: { min: string; max: string } | undefined) => string;
  link: (id: string) => string;
  notFound: { title: string; detail: string };
}

const en: LinkPageMessages = {
  title: 'Pay',
  enterAmount: 'Amount to pay',
  between: (min, max) => `Between ${min} and ${max}.`,
  continue: 'Continue to payment',
  unavailable: {
    inactive: { title: 'This payment link is no longer active', detail: (m) => `Ask ${m} for a new link.` },
    expired: { title: 'This payment link has expired', detail: (m) => `Ask ${m} for a new link.` },
    used_up: {
      title: 'This payment link has reached its limit',
      detail: (m) => `It cannot take more payments right now. Ask ${m} if you need to pay.`,
    },
  },
  refused: (code, issue, bounds) => {
    if (issue === 'amount_outside_bounds' && bounds !== undefined)
      return `Enter an amount between ${bounds.min} and ${bounds.max}.`;
    if (issue === 'required') return 'Enter the amount to pay.';
    if (code === 'invalid_request') return 'Enter the amount as a number, for example 150000.';
    return 'This payment could not be started. Please try again later.';
  },
  link: (id) => `Payment link ${id}`,
  notFound: { title: 'Payment link not found', detail: 'Check the link you were given, or ask the merchant for a new one.' },
};

const id: LinkPageMessages = {
  title: 'Bayar',
  enterAmount: 'Jumlah yang dibayar',
  between: (min, max) => `Antara ${min} dan ${max}.`,
  continue: 'Lanjut ke pembayaran',
  unavailable: {
    inactive: { title: 'Tautan pembayaran ini sudah tidak aktif', detail: (m) => `Mintalah tautan baru kepada ${m}.` },
    expired: { title: 'Tautan pembayaran ini sudah kedaluwarsa', detail: (m) => `Mintalah tautan baru kepada ${m}.` },
    used_up: {
      title: 'Tautan pembayaran ini sudah mencapai batasnya',
      detail: (m) => `Saat ini tautan tidak dapat menerima pembayaran lagi. Hubungi ${m} jika Anda perlu membayar.`,
    },
  },
  refused: (code, issue, bounds) => {
    if (issue === 'amount_outside_bounds' && bounds !== undefined)
      return `Masukkan jumlah antara ${bounds.min} dan ${bounds.max}.`;
    if (issue === 'required') return 'Masukkan jumlah yang dibayar.';
    if (code === 'invalid_request') return 'Masukkan jumlah sebagai angka, misalnya 150000.';
    return 'Pembayaran ini tidak dapat dimulai. Silakan coba lagi nanti.';
  },
  link: (id) => `Tautan pembayaran ${id}`,
  notFound: {
    title: 'Tautan pembayaran tidak ditemukan',
    detail: 'Periksa tautan yang Anda terima, atau minta tautan baru kepada penjual.',
  },
};

export const LINK_PAGE_MESSAGES: Readonly<Record<Locale, LinkPageMessages>> = { en, id };
