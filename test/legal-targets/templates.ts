/**
 * A fixed genome of the version-4 facts endpoint templates, pending statuses and per-merchant refund support: a refund
 * created under its payment's path, refunds and payouts found and cancelled by the number in their path, a card awaiting
 * 3-D Secure under a status of its own, and a method only the second merchant has, without refunds, said per merchant;
 * with payout fees, a payout range per currency, and payments that credit the payout balance.
 */
import { REFERENCE_GENES, type TargetGenes, type TargetGenome } from '../../fixtures/arbitraries/genome.js';

const TARGET: TargetGenes = {
  ...REFERENCE_GENES,
  paths: {
    prefix: '/api/v1/merchant',
    refundCreate: 'order_no',
    refundQuery: 'refund_no',
    payoutQuery: 'payout_no',
    payoutCancel: 'payout_no',
  },
  cardPendingStatus: 'AUTHENTICATING',
  secondOnly: 'KLARNA',
  refundsByMerchant: true,
  // The reference's payout fees and EUR ranges, and successful payments crediting the USD payout balance.
  money: { ...REFERENCE_GENES.money!, paymentsCredit: ['payout'] },
};

export const TEMPLATED_GENOME: TargetGenome = { readings: [], target: TARGET };

/** The same target's accounts and channels, said with the reference's fixed paths and one pending status: a profile that lies about it. */
export const WITHOUT_V4: TargetGenome = {
  readings: [],
  target: { ...TARGET, paths: undefined, cardPendingStatus: null, refundsByMerchant: false },
};
