import type { Certificate } from './certificate.js';
import { clauseAnchor } from './paths.js';
import { clauses as registry } from '../clauses/registry.js';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const COLOURS: Record<string, string> = {
  passed: '#1a7f37',
  failed: '#cf222e',
  'not-met': '#bc4c00',
  disputed: '#8250df',
  'skipped-precondition': '#9a6700',
  'not-checked': '#57606a',
  unspecified: '#8250df',
};

/**
 * <reports>/clauses.html: every statement of the registry with its status in this run; the clause
 * links of the Allure report point at its anchors. Plain HTML, no script, nothing loaded from elsewhere.
 */
export function renderClausesPage(c: Certificate): string {
  const text = new Map<string, string>(registry.map((x) => [x.id, x.text]));
  const rows = c.clauses.map((x) => {
    const ev = x.failures
      .map(
        (f) =>
          `${esc(f.checkId)} · ${esc(f.code)}${f.exchangeId ? ` · ${esc(f.exchangeId)}` : ''}` +
          `${f.repro ? ` · <a href="repro/${esc(f.repro)}">repro</a>` : ''}`,
      )
      .join('<br>');
    const by = x.exercisedBy ?? [];
    const credit =
      x.status === 'passed' && by.length
        ? `<div class="ev">exercised by ${by.slice(0, 3).map(esc).join(', ')}${by.length > 3 ? ` (+${by.length - 3})` : ''}</div>`
        : '';
    return (
      `<tr id="${esc(clauseAnchor(x.id))}"><td><code>${esc(x.id)}</code></td><td>${esc(x.level)}</td><td>${esc(x.party)}` +
      `</td><td style="color:${COLOURS[x.status] ?? '#000'};font-weight:600">${esc(x.status)}</td><td>${esc(text.get(x.id) ?? '')}` +
      `<div class="s">${esc(x.section)}</div></td><td>${esc(x.basis)}${credit}${ev ? `<div class="ev">${ev}</div>` : ''}` +
      `${x.knownDeviation ? `<div class="kd">known deviation: ${esc(x.knownDeviation.comment)}</div>` : ''}</td></tr>`
    );
  });
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>MPSI clauses — ${esc(c.profile.name)} — ${esc(c.verdict)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1f2328}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
tr:target{background:#fff8c5}code{font-size:13px}.s{color:#57606a;font-size:12px}\
.ev{font-size:12px;margin-top:4px}.kd{color:#9a6700;font-size:12px}
</style></head><body>
<h1>Clauses of the Merchant Payment Service Interface</h1>
<p>Verdict of this run: <strong>${esc(c.verdict)}</strong> (exit code ${c.exitCode}) — target ${esc(c.target.url)}, \
profile ${esc(c.profile.name)}, kit ${esc(c.kit.version)}, seed ${c.seed}, ${esc(c.date)}. The document (INTERFACE.md) \
is the authority; the text here is a paraphrase. See also <a href="certificate.md">certificate.md</a>.</p>
<table><thead><tr><th>clause</th><th>level</th><th>binds</th><th>status</th><th>statement</th><th>basis</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></body></html>
`;
}
