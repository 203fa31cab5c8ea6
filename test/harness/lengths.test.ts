/**
 * The lengths a profile says (harness/profile/lengths.ts) and the parameters a query needs (harness/profile/query-params.ts):
 * the kit's values within the said lengths, and a refusal an unsaid length may explain told apart from one it cannot.
 */
import { describe, expect, it } from 'vitest';
import { fitLength, fitNumber, lengthFieldsNamed, unsaidLengthRefusal, unsaidLengthsOf } from '../../harness/profile/lengths.js';
import { queryParamsFor, withQueryParams } from '../../harness/profile/query-params.js';
import type { Profile } from '../../harness/profile/types.js';

const said = { lengths: { maxLength: { goodsName: 5, merchantOrderNo: 16, merchantRefundNo: 12 } } } as Pick<Profile, 'lengths'>;

describe('the kit within the said lengths', () => {
  it('cuts a text to its said length on whole code points, and leaves it where the length is unsaid', () => {
    expect(fitLength(said, 'goodsName', 'Conformance test item')).toBe('Confo');
    expect(fitLength(said, 'goodsName', '😀😀😀')).toBe('😀😀');
    expect(fitLength(said, 'metadata', 'x'.repeat(500))).toHaveLength(500);
  });

  it('keeps a number within the shortest of its lengths, its tag and counter whole', () => {
    const prefix = 'KMIABCDEF0123AB';
    expect(fitNumber(said, ['merchantOrderNo'], prefix, 'O000042')).toHaveLength(16);
    const both = fitNumber(said, ['merchantOrderNo', 'merchantRefundNo'], prefix, 'O000042');
    expect(both).toHaveLength(12);
    expect(both.startsWith('K')).toBe(true);
    expect(both.endsWith('O000042')).toBe(true);
    expect(fitNumber({}, ['merchantOrderNo'], prefix, 'O000042')).toBe(`${prefix}O000042`);
  });
});

describe('a refusal an unsaid length may explain', () => {
  const profile = { refunds: { template: { merchant_refund_no: `\${merchantRefundNo}`, why: `\${reason}` } } } as unknown as Profile;
  const body = Buffer.from(JSON.stringify({ merchant_order_no: 'K1', trade_info: { goods_name: 'Tea' }, why: 'Broken' }));
  const unsaid = unsaidLengthsOf(profile, body);

  it('lists the carried strings whose length is unsaid, by the names a message may use, and the body size', () => {
    expect(unsaid.map((u) => u.field).sort()).toEqual(['goodsName', 'maxBodyBytes', 'merchantOrderNo', 'reason']);
    expect(unsaidLengthsOf({ ...profile, lengths: { maxLength: { goodsName: 9 }, maxBodyBytes: 900 } }, body).map((u) => u.field)).toEqual([
      'merchantOrderNo',
      'reason',
    ]);
  });

  it('is one that names such a field or speaks of a length, with the key of a field refusal', () => {
    expect(
      lengthFieldsNamed(unsaidLengthRefusal(unsaid, 'validationFailed', 'Field TradeInfo.GoodsName is invalid|validationFailed')),
    ).toEqual(['lengths.maxLength.goodsName']);
    expect(unsaidLengthRefusal(unsaid, 'invalidRequest', 'Value too long|invalidRequest').length).toBe(unsaid.length);
  });

  it('is not one that names nothing carried, nor another key', () => {
    expect(unsaidLengthRefusal(unsaid, 'validationFailed', 'Amount has more than 2 decimal places|validationFailed')).toEqual([]);
    expect(unsaidLengthRefusal(unsaid, 'systemBusy', 'Field goods_name is too long|systemBusy')).toEqual([]);
    expect(unsaidLengthRefusal([], 'validationFailed', 'Field goods_name is too long|validationFailed')).toEqual([]);
  });
});

describe("a query's own parameters", () => {
  it('fills the templates with the merchant id and the date, and never replaces a lookup number', () => {
    const p = { queryParams: { payment: { store_id: `\${merchantId}`, from: `\${today}`, merchant_order_no: 'X' } } } as Pick<
      Profile,
      'queryParams'
    >;
    const filled = queryParamsFor(p, 'payment', 'M1', new Date('2026-01-02T03:04:05Z'));
    expect(filled).toEqual({ store_id: 'M1', from: '2026-01-02', merchant_order_no: 'X' });
    const body = withQueryParams(p, 'payment', 'M1', { merchant_order_no: 'K1' });
    expect(body.merchant_order_no).toBe('K1');
    expect(body.store_id).toBe('M1');
    expect(withQueryParams(p, 'refund', 'M1', { refund_no: 'R' })).toEqual({ refund_no: 'R' });
  });
});
