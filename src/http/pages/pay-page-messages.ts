import type { PayerState } from '../../modules/payments/payer-status.ts';
import { html, type SafeHtml } from './html.ts';
import type { Locale } from './locale.ts';

/**
 * Every word of the payer page (`pay-page.ts`), per language. `Messages` is an interface and the
 * catalogue a `Record<Locale, …>`, so a language missing a text does not compile. Sentences that
 * embed a value are functions, so each language places the value where its grammar wants it;
 * values are escaped by the page's `html` template, never here.
 */
export interface PayPageMessages {
  states: Record<PayerState, { title: string; detail: (merchant: string) => string }>;
  sandboxBanner: string;
  payTo: (merchant: SafeHtml) => SafeHtml;
  /** Label of a row holding the amount, and what follows the amount there. */
  amount: string;
  exactly: string;
  copy: string;
  /** Read by the page script from data attributes (the script text is fixed by its CSP hash). */
  copied: string;
  timeLeft: string;
  timeUp: string;
  bank: {
    title: string;
    bank: string;
    accountNumber: string;
    accountName: string;
    steps: (o: { bank: string; holder: string; amount: string }) => string[];
  };
  ewallet: {
    title: (provider: string) => string;
    scan: (provider: string) => string;
    payWith: (amount: string, provider: string) => string;
    openApp: (provider: string) => string;
    /** The QR code's accessible name (the SVG's aria-label). */
    qrLabel: (provider: string) => string;
  };
  counter: {
    title: (partner: string) => string;
    paymentCode: string;
    payAt: string;
    steps: (o: { merchant: string; partner: string; amount: string }) => string[];
  };
  payBefore: string;
  statusAsOf: (time: SafeHtml) => SafeHtml;
  reloadsEvery: (seconds: number) => string;
  payment: (id: string) => string;
  notFound: { title: string; detail: string };
}

const en: PayPageMessages = {
  states: {
    preparing: {
      title: 'Preparing your payment instructions',
      detail: () => 'This takes a few seconds. This page updates by itself.',
    },
    payable: {
      title: 'Waiting for your payment',
      detail: () => 'Follow the instructions below. This page updates when the payment arrives.',
    },
    expired: {
      title: 'This payment has expired',
      detail: (m) => `Do not pay these instructions any more. Ask ${m} for a new payment.`,
    },
    succeeded: {
      title: 'Payment received',
      detail: (m) => `Thank you. Your payment to ${m} is complete; you can close this page.`,
    },
    failed: { title: 'This payment could not be completed', detail: (m) => `Do not pay. Contact ${m} if you need help.` },
    canceled: { title: 'This payment was canceled', detail: (m) => `${m} canceled this payment. Do not pay.` },
    reversed: {
      title: 'This payment was reversed',
      detail: (m) => `The payment was returned by the provider. Contact ${m} if you have questions.`,
    },
  },
  sandboxBanner: 'Sandbox payment: no real money moves.',
  payTo: (m) => html`Pay to ${m}`,
  amount: 'Amount',
  exactly: '(exactly)',
  copy: 'Copy',
  copied: 'Copied',
  timeLeft: 'Time left',
  timeUp: 'Time is up',
  bank: {
    title: 'Transfer to this virtual account',
    bank: 'Bank',
    accountNumber: 'Account number',
    accountName: 'Account name',
    steps: ({ bank, holder, amount }) => [
      `Open your ${bank} app, internet banking or an ATM.`,
      'Choose a transfer to a virtual account and enter the account number above.',
      `Check that the account name is ${holder} and pay exactly ${amount}.`,
    ],
  },
  ewallet: {
    title: (p) => `Pay with ${p}`,
    scan: (p) => `Scan this code with the ${p} app, or use a button below.`,
    payWith: (amount, p) => `Pay ${amount} with ${p}`,
    openApp: (p) => `Open the ${p} app`,
    qrLabel: (p) => `QR code to pay with ${p}`,
  },
  counter: {
    title: (partner) => `Pay in cash at ${partner}`,
    paymentCode: 'Payment code',
    payAt: 'Pay at',
    steps: ({ merchant, partner, amount }) => [
      'Go to any of the outlets above before the time below.',
      `At the cashier, ask to pay a payment code for ${merchant} (${partner}).`,
      `Show or read out the payment code and pay exactly ${amount}. Keep the receipt.`,
    ],
  },
  payBefore: 'Pay before',
  statusAsOf: (time) => html`Status as of ${time}`,
  reloadsEvery: (s) => `; this page reloads every ${s} seconds`,
  payment: (id) => `Payment ${id}`,
  notFound: {
    title: 'Payment not found',
    detail: 'Check the link you were given, or ask the merchant for a new one.',
  },
};

const id: PayPageMessages = {
  states: {
    preparing: {
      title: 'Menyiapkan instruksi pembayaran Anda',
      detail: () => 'Ini hanya butuh beberapa detik. Halaman ini akan diperbarui dengan sendirinya.',
    },
    payable: {
      title: 'Menunggu pembayaran Anda',
      detail: () => 'Ikuti petunjuk di bawah ini. Halaman ini akan diperbarui begitu pembayaran diterima.',
    },
    expired: {
      title: 'Pembayaran ini sudah kedaluwarsa',
      detail: (m) => `Jangan membayar dengan instruksi ini lagi. Mintalah pembayaran baru kepada ${m}.`,
    },
    succeeded: {
      title: 'Pembayaran diterima',
      detail: (m) => `Terima kasih. Pembayaran Anda kepada ${m} sudah selesai; Anda dapat menutup halaman ini.`,
    },
    failed: {
      title: 'Pembayaran ini tidak dapat diselesaikan',
      detail: (m) => `Jangan membayar. Hubungi ${m} jika Anda memerlukan bantuan.`,
    },
    canceled: { title: 'Pembayaran ini dibatalkan', detail: (m) => `${m} membatalkan pembayaran ini. Jangan membayar.` },
    reversed: {
      title: 'Pembayaran ini dikembalikan',
      detail: (m) => `Dana pembayaran dikembalikan oleh penyedia pembayaran. Hubungi ${m} jika ada pertanyaan.`,
    },
  },
  sandboxBanner: 'Pembayaran uji coba (sandbox): tidak ada uang sungguhan yang berpindah.',
  payTo: (m) => html`Bayar ke ${m}`,
  amount: 'Jumlah',
  exactly: '(harus tepat)',
  copy: 'Salin',
  copied: 'Tersalin',
  timeLeft: 'Sisa waktu',
  timeUp: 'Waktu habis',
  bank: {
    title: 'Transfer ke virtual account ini',
    bank: 'Bank',
    accountNumber: 'Nomor rekening',
    accountName: 'Nama rekening',
    steps: ({ bank, holder, amount }) => [
      `Buka aplikasi ${bank}, internet banking, atau ATM.`,
      'Pilih transfer ke virtual account, lalu masukkan nomor rekening di atas.',
      `Pastikan nama rekening adalah ${holder}, lalu bayar tepat ${amount}.`,
    ],
  },
  ewallet: {
    title: (p) => `Bayar dengan ${p}`,
    scan: (p) => `Pindai kode ini dengan aplikasi ${p}, atau gunakan tombol di bawah.`,
    payWith: (amount, p) => `Bayar ${amount} dengan ${p}`,
    openApp: (p) => `Buka aplikasi ${p}`,
    qrLabel: (p) => `Kode QR untuk membayar dengan ${p}`,
  },
  counter: {
    title: (partner) => `Bayar tunai di ${partner}`,
    paymentCode: 'Kode pembayaran',
    payAt: 'Bayar di',
    steps: ({ merchant, partner, amount }) => [
      'Datangi salah satu gerai di atas sebelum batas waktu di bawah.',
      `Di kasir, sampaikan bahwa Anda ingin membayar kode pembayaran untuk ${merchant} (${partner}).`,
      `Tunjukkan atau sebutkan kode pembayaran, lalu bayar tepat ${amount}. Simpan struknya.`,
    ],
  },
  payBefore: 'Bayar sebelum',
  statusAsOf: (time) => html`Status per ${time}`,
  reloadsEvery: (s) => `; halaman ini dimuat ulang setiap ${s} detik`,
  payment: (pid) => `Pembayaran ${pid}`,
  notFound: {
    title: 'Pembayaran tidak ditemukan',
    detail: 'Periksa kembali tautan yang Anda terima, atau mintalah tautan baru kepada penjual.',
  },
};

export const PAY_PAGE_MESSAGES: Readonly<Record<Locale, PayPageMessages>> = { en, id };
