import type { Channel } from '../../kernel/index.ts';
import type { SafeHtml } from './html.ts';
import type { Locale } from './locale.ts';

/**
 * Every word of the hosted checkout page (`checkout-page.ts`), per language; the instructions of a
 * chosen method are the payment page's own (pay-page-messages.ts). A language missing a text does
 * not compile.
 */
export interface CheckoutPageMessages {
  title: string;
  payTo: (merchant: SafeHtml) => SafeHtml;
  choose: { title: string; detail: string };
  channels: Record<Channel, string>;
  noMethods: string;
  cancel: (merchant: string) => string;
  chooseAnother: string;
  selecting: { title: string; detail: string };
  completed: { title: string; detail: (merchant: string) => string; back: (merchant: string) => string };
  expired: { title: string; detail: (merchant: string) => string; back: (merchant: string) => string };
  /** Why a choice was refused, by the catalogue code the selection answered. */
  refused: (code: string) => string;
  checkout: (id: string) => string;
  notFound: { title: string; detail: string };
}

const en: CheckoutPageMessages = {
  title: 'Choose how to pay',
  payTo: (merchant) => merchant,
  choose: { title: 'Choose how to pay', detail: 'Pick a method; its payment instructions appear on this page.' },
  channels: { bank: 'Bank transfer (virtual account)', ewallet: 'E-wallet', counter: 'Pay in cash at an outlet' },
  noMethods: 'No payment method is available for this amount right now. Please try again later.',
  cancel: (merchant) => `Cancel and return to ${merchant}`,
  chooseAnother: 'Choose another payment method',
  selecting: { title: 'Preparing your payment', detail: 'This takes a few seconds. This page updates by itself.' },
  completed: {
    title: 'Payment received',
    detail: (m) => `Thank you. Your payment to ${m} is complete.`,
    back: (m) => `Return to ${m}`,
  },
  expired: {
    title: 'This checkout has expired',
    detail: (m) => `Do not pay any instructions you were shown for it. Ask ${m} for a new link.`,
    back: (m) => `Return to ${m}`,
  },
  refused: (code) =>
    code === 'provider_unavailable' || code === 'channel_unavailable'
      ? 'That method is not available right now. Please choose another one.'
      : 'That method cannot be used for this payment. Please choose another one.',
  checkout: (id) => `Checkout ${id}`,
  notFound: { title: 'Checkout not found', detail: 'Check the link you were given, or ask the merchant for a new one.' },
};

const id: CheckoutPageMessages = {
  title: 'Pilih cara bayar',
  payTo: (merchant) => merchant,
  choose: { title: 'Pilih cara bayar', detail: 'Pilih satu metode; petunjuk pembayarannya muncul di halaman ini.' },
  channels: { bank: 'Transfer bank (virtual account)', ewallet: 'Dompet digital', counter: 'Bayar tunai di gerai' },
  noMethods: 'Saat ini tidak ada metode pembayaran untuk jumlah ini. Silakan coba lagi nanti.',
  cancel: (merchant) => `Batalkan dan kembali ke ${merchant}`,
  chooseAnother: 'Pilih metode pembayaran lain',
  selecting: { title: 'Menyiapkan pembayaran Anda', detail: 'Ini memerlukan beberapa detik. Halaman ini diperbarui sendiri.' },
  completed: {
    title: 'Pembayaran diterima',
    detail: (m) => `Terima kasih. Pembayaran Anda kepada ${m} telah selesai.`,
    back: (m) => `Kembali ke ${m}`,
  },
  expired: {
    title: 'Checkout ini sudah kedaluwarsa',
    detail: (m) => `Jangan membayar petunjuk apa pun yang ditampilkan untuknya. Mintalah tautan baru kepada ${m}.`,
    back: (m) => `Kembali ke ${m}`,
  },
  refused: (code) =>
    code === 'provider_unavailable' || code === 'channel_unavailable'
      ? 'Metode itu sedang tidak tersedia. Silakan pilih metode lain.'
      : 'Metode itu tidak dapat digunakan untuk pembayaran ini. Silakan pilih metode lain.',
  checkout: (id) => `Checkout ${id}`,
  notFound: {
    title: 'Checkout tidak ditemukan',
    detail: 'Periksa tautan yang Anda terima, atau minta tautan baru kepada penjual.',
  },
};

export const CHECKOUT_PAGE_MESSAGES: Readonly<Record<Locale, CheckoutPageMessages>> = { en, id };
