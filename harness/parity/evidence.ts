/** The exchanges a difference points at, as text (request, response, signature verdict), one pair per difference. */
import type { Exchange } from '../http/exchange.js';
import { requestText, responseText } from '../report/exchange-text.js';
import { storeExchange } from '../run/results.js';
import type { CheckComparison } from './compare.js';

function cut(text: string, max = 2500): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

function exchangeText(ex: Exchange | undefined): string {
  if (!ex) return '(no such exchange on this side)';
  const s = storeExchange(ex);
  return cut(`${ex.label}\n\n${requestText(s)}\n\n— response —\n${responseText(s)}`);
}

/** The exchanges a check's differences point at, as pairs. */
export function evidencePairs(c: CheckComparison, ev: { a: Exchange[]; b: Exchange[] } | undefined, max = 2): { a: string; b: string }[] {
  if (!ev) return [];
  const seen = new Set<string>();
  const out: { a: string; b: string }[] = [];
  for (const d of c.differences) {
    if (!d.exchange) continue;
    const k = `${d.exchange.a}/${d.exchange.b}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({
      a: exchangeText(d.exchange.a === undefined ? undefined : ev.a[d.exchange.a]),
      b: exchangeText(d.exchange.b === undefined ? undefined : ev.b[d.exchange.b]),
    });
    if (out.length >= max) break;
  }
  return out;
}
