/** Valid request bodies for the reference's endpoints; tests override one field at a time. */
import { uniq } from './client.js';

export const CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  risk: '4000000000009235',
  noChannel: '4000000000000119',
  otherValid: '5555555555554444',
  badLuhn: '4242424242424241',
} as const;

export function checkoutBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payment_method: 'PAYPAL',
    merchant_order_no: uniq('O'),
    trans_amount: { currency: 'USD', value: '25.00' },
    trade_info: { goods_name: 'Green tea', description: 'Two boxes' },
    notify_url: 'http://127.0.0.1:9/unused',
    return_url: 'https://shop.example/return',
    ...over,
  };
}

export function cardBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payment_method: 'CARD',
    merchant_order_no: uniq('C'),
    trans_amount: { currency: 'USD', value: '40.00' },
    trade_info: { goods_name: 'Coffee beans' },
    notify_url: 'http://127.0.0.1:9/unused',
    card: {
      card_number: CARDS.success,
      cardholder_name: 'Ada Lovelace',
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      cvc: '123',
    },
    billing_address: { country: 'US', email: 'ada@example.com', city: 'Springfield' },
    device_ip: '203.0.113.7',
    ...over,
  };
}

export function refundBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    merchant_refund_no: uniq('RF'),
    refund_amount: { currency: 'USD', value: '5.00' },
    reason: 'Customer request',
    ...over,
  };
}

/** The reference's payee fields per payout method (a PAYPAL payout needs an email, a bank transfer a name and account). */
export const PAYEES: Record<string, Record<string, string>> = {
  BANK_TRANSFER: { name: 'Grace Hopper', account: 'GB33BUKB20201555555555' },
  PAYPAL: { email: 'grace@example.com' },
};

export function payoutBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const method = typeof over['payment_method'] === 'string' ? over['payment_method'] : 'BANK_TRANSFER';
  return {
    payment_method: 'BANK_TRANSFER',
    merchant_payout_no: uniq('PO'),
    trans_amount: { currency: 'USD', value: '100.00' },
    payee: PAYEES[method] ?? PAYEES['BANK_TRANSFER'],
    notify_url: 'http://127.0.0.1:9/unused',
    ...over,
  };
}

export function usd(value: string): { currency: string; value: string } {
  return { currency: 'USD', value };
}
