// @ts-check
/**
 * The part of every reproduction script that does the work. harness/report/repro.ts writes a script as its header
 * comment, `const RECORDED = {...};` and this file without the kit-only block below, so the script is one file that
 * plain `node FILE` runs anywhere: JavaScript and node built-ins only. Kept as a module of its own so that the
 * compiler checks it (`// @ts-check`) and the linter reads it, which a template string never was.
 */
/* kit-only-start: the script that embeds this file declares RECORDED itself, with the recorded exchanges. */
/** @type {import('./repro.js').ReproData} */
const RECORDED = JSON.parse(process.env.MPSI_REPRO_RECORDED ?? 'null');
/* kit-only-end */

/** @typedef {import('./repro.js').ReproStep} Step */
/** @typedef {{ status: number; headers: Record<string, string | string[]>; body: Buffer }} Answer */
import { createHmac, randomBytes } from 'node:crypto';
import { connect as tcp } from 'node:net';
import { connect as tls } from 'node:tls';

const args = process.argv.slice(2);
const baseArg = args.indexOf('--base-url');
if (baseArg >= 0 && !args[baseArg + 1]) {
  console.error('--base-url needs a URL');
  process.exit(2);
}
const base = (baseArg >= 0 ? args[baseArg + 1] : RECORDED.baseUrl).replace(/\/+$/, '');
const withContext = !args.includes('--no-context');
const renew = withContext && !args.includes('--recorded-numbers');

// Recorded number -> the number this reproduction uses instead.
/** @type {Map<string, string>} */
const numbers = new Map();
const KINDS = [/[A-Z]/, /[a-z]/, /[0-9]/];
const ALPHABETS = ['ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz', '0123456789'];
/** @param {string} old */
function fresh(old) {
  // Same length and each character of the same kind, so a length or format rule judges it as it judged the recorded one.
  const keep = old.length > 12 ? old.length - 8 : 0;
  const bytes = randomBytes(old.length);
  let out = old.slice(0, keep);
  for (let i = keep; i < old.length; i++) {
    const c = /** @type {string} */ (old[i]);
    const k = KINDS.findIndex((re) => re.test(c));
    out += k < 0 ? c : /** @type {string} */ (ALPHABETS[k])[/** @type {number} */ (bytes[i]) % /** @type {string} */ (ALPHABETS[k]).length];
  }
  return out;
}
if (renew) for (const n of RECORDED.numbers.merchant) numbers.set(n, fresh(n));

/** @param {string} text */
function renewed(text) {
  let out = text;
  for (const [old, now] of numbers) out = out.split(JSON.stringify(old)).join(JSON.stringify(now));
  return out;
}
/** @param {string} path */
function renewedPath(path) {
  let out = path;
  for (const [old, now] of numbers) out = out.split(old).join(encodeURIComponent(now));
  return out;
}

/**
 * @param {string} secret @param {string} id @param {string} ts @param {string} nonce @param {Buffer} body
 */
function mac(secret, id, ts, nonce, body) {
  return createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(id + '\n' + ts + '\n' + nonce + '\n'), body]))
    .digest();
}
/** @param {Answer['headers']} hs @param {string} name @returns {string[]} */
function header(hs, name) {
  const v = hs[name.toLowerCase()];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** @param {Step} s */
function prepare(s) {
  const recordedBody = Buffer.from(s.bodyBase64, 'base64');
  const body = numbers.size > 0 ? Buffer.from(renewed(recordedBody.toString('latin1')), 'latin1') : recordedBody;
  /** @type {[string, string][]} */
  const headers = s.headers.map(([k, v]) => [k, v]);
  const length = headers.find(([k]) => k.toLowerCase() === 'content-length');
  // A declared length that differed from the body on purpose keeps its difference.
  if (length && body.length !== recordedBody.length) length[1] = String(Number(length[1]) + body.length - recordedBody.length);
  const secret = s.secretEnv ? process.env[s.secretEnv] : undefined;
  if (s.signing === 'as-recorded') return { headers, body, secret };
  if (!secret) {
    console.error('set ' + s.secretEnv + ' to the secret key of merchant ' + s.merchantId + ' (it is never printed)');
    process.exit(2);
  }
  // The recorded request carries the four signing headers (a re-signed step is one the check signed).
  /** @param {string} n @returns {[string, string]} */
  const get = (n) => /** @type {[string, string]} */ (headers.find(([k]) => k.toLowerCase() === n.toLowerCase()));
  const ts = get('X-Timestamp');
  const nonce = get('X-Nonce');
  if (!s.keepTimestamp) ts[1] = String(Math.floor(Date.now() / 1000));
  if (!s.keepNonce) nonce[1] = randomBytes(18).toString('base64url');
  const m = mac(secret, s.merchantId ?? '', ts[1], nonce[1], body);
  get('X-Sign')[1] =
    s.signing === 'resign-upper-hex'
      ? m.toString('hex').toUpperCase()
      : s.signing === 'resign-base64'
        ? m.toString('base64')
        : m.toString('hex');
  return { headers, body, secret };
}

/** @param {Step} s @param {[string, string][]} headers @param {Buffer} body */
function head(s, headers, body) {
  const url = new URL(base + renewedPath(s.path));
  const recordedHost = new URL(RECORDED.baseUrl).host;
  // The headers as they went on the wire, in order; the Host follows the base URL (unless the check
  // sent another on purpose) and the connection is closed after the answer so the answer ends cleanly.
  const lines = [s.method + ' ' + url.pathname + url.search + ' HTTP/1.1'];
  /** @param {string} n */
  const has = (n) => headers.some(([k]) => k.toLowerCase() === n);
  if (!has('host')) lines.push('Host: ' + url.host);
  for (const [k, v] of headers) {
    const lower = k.toLowerCase();
    if (lower === 'host') lines.push(k + ': ' + (v === recordedHost ? url.host : v));
    else if (lower === 'connection') lines.push(k + ': close');
    else lines.push(k + ': ' + v);
  }
  const declared = headers.find(([k]) => k.toLowerCase() === 'content-length');
  if (!declared) lines.push('Content-Length: ' + body.length);
  if (!has('connection')) lines.push('Connection: close');
  return { url, lines, halfClose: declared !== undefined && Number(declared[1]) > body.length };
}

/**
 * @param {URL} url @param {string[]} lines @param {Buffer} body @param {boolean} halfClose
 * @returns {Promise<Answer>}
 */
function send(url, lines, body, halfClose) {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const sock =
      url.protocol === 'https:' ? tls({ host: url.hostname, port, servername: url.hostname }) : tcp({ host: url.hostname, port });
    /** @type {Buffer[]} */
    const chunks = [];
    sock.setTimeout(15_000, () => sock.destroy(new Error('no complete answer within 15 s')));
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error('the connection closed without a complete HTTP answer (' + all.length + ' bytes)'));
      const [statusLine, ...rest] = all.subarray(0, split).toString('latin1').split('\r\n');
      /** @type {Answer['headers']} */
      const hs = {};
      for (const l of rest) {
        const i = l.indexOf(':');
        const k = l.slice(0, i).trim().toLowerCase();
        const v = l.slice(i + 1).trim();
        const prev = hs[k];
        hs[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
      }
      let b = all.subarray(split + 4);
      if (
        String(hs['transfer-encoding'] ?? '')
          .toLowerCase()
          .includes('chunked')
      ) {
        /** @type {Buffer[]} */
        const parts = [];
        for (let at = 0; ; ) {
          const eol = b.indexOf('\r\n', at);
          const size = parseInt(b.subarray(at, eol).toString('latin1'), 16);
          if (!(size > 0)) break;
          parts.push(b.subarray(eol + 2, eol + 2 + size));
          at = eol + 2 + size + 2;
        }
        b = Buffer.concat(parts);
      } else if (typeof hs['content-length'] === 'string') b = b.subarray(0, Number(hs['content-length']));
      resolve({ status: Number(String(statusLine).split(' ')[1]), headers: hs, body: b });
    });
    sock.write(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), body]));
    if (halfClose) sock.end();
  });
}

/** @param {Step} s @param {Answer} res @param {string | undefined} secret */
function verdict(s, res, secret) {
  if (!secret || !s.merchantId) return 'not checked';
  /** @type {Record<string, string>} */
  const v = {};
  for (const n of ['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign']) {
    const all = header(res.headers, n);
    if (all.length > 1) return 'duplicate-header';
    if (all.length === 0) return 'missing-header';
    if (all[0] === '') return 'empty-header';
    v[n] = /** @type {string} */ (all[0]);
  }
  if (v['X-MerchantID'] !== s.merchantId) return 'merchant-mismatch';
  const m = mac(secret, s.merchantId, String(v['X-Timestamp']), String(v['X-Nonce']), res.body);
  const sent = String(v['X-Sign']);
  if (sent === m.toString('hex')) return 'ok';
  if (/^[0-9a-fA-F]{64}$/.test(sent) && sent.toLowerCase() === m.toString('hex')) return 'upper-case-hex';
  if (sent === m.toString('base64')) return 'base64';
  return /^[0-9a-f]{64}$/.test(sent) ? 'mismatch' : 'not-lower-hex';
}

/** @param {Buffer} body @returns {unknown} */
function parsed(body) {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
/** @param {any} j JSON of any shape: only `code` and `msg` are read */
function envelope(j) {
  const msg = typeof j?.msg === 'string' ? j.msg : undefined;
  return { code: j?.code, key: msg?.includes('|') ? msg.slice(msg.lastIndexOf('|') + 1) : undefined };
}
/** @param {any} value @param {string[]} path */
function at(value, path) {
  let cur = value;
  for (const p of path) cur = cur !== null && typeof cur === 'object' ? cur[p] : undefined;
  return cur;
}

/** @param {Step} s @param {number} index @param {boolean} verbose @returns {Promise<boolean>} */
async function run(s, index, verbose) {
  const { headers, body, secret } = prepare(s);
  console.log('→ ' + s.method + ' ' + base + renewedPath(s.path) + '   (' + s.id + ': ' + s.label + ')');
  console.log('  signing: ' + s.signingNote);
  const h = head(s, headers, body);
  if (verbose) {
    for (const l of h.lines) console.log('  ' + l);
    console.log('  body (' + body.length + ' bytes): ' + body.toString('utf8').slice(0, 2000));
  }
  let res;
  try {
    res = await send(h.url, h.lines, body, h.halfClose);
  } catch (err) {
    console.error('✗ the request could not be made: ' + (err instanceof Error ? err.message : String(err)));
    process.exit(2);
  }
  const json = parsed(res.body);
  const e = envelope(json);
  // The service's numbers this answer gives, in place of the recorded ones, for the requests that follow.
  if (renew) {
    for (const n of RECORDED.numbers.service) {
      const now = n.step === index ? at(json, n.path) : undefined;
      if (typeof now === 'string' && now !== '') numbers.set(n.value, now);
    }
  }
  const sig = res.status === 200 ? verdict(s, res, secret) : 'not signed (HTTP ' + res.status + ')';
  console.log(
    '← HTTP ' + res.status + '   code ' + JSON.stringify(e.code) + ', key ' + (e.key ?? '(none)') + ', response signature: ' + sig,
  );
  if (verbose) {
    for (const [k, v] of Object.entries(res.headers)) console.log('  ' + k + ': ' + (Array.isArray(v) ? v.join(' | ') : v));
    console.log('  body (' + res.body.length + ' bytes): ' + res.body.toString('utf8').slice(0, 2000));
  }
  const r = s.recorded;
  if (!r) return true;
  const recSig = r.status === 200 ? r.signature : 'not signed (HTTP ' + r.status + ')';
  console.log(
    '  recorded: HTTP ' +
      r.status +
      '   code ' +
      JSON.stringify(r.code) +
      ', key ' +
      (r.key ?? '(none)') +
      ', response signature: ' +
      recSig,
  );
  return (
    res.status === r.status &&
    JSON.stringify(e.code) === JSON.stringify(r.code) &&
    e.key === r.key &&
    (sig === recSig || r.signature === 'not checked')
  );
}

if (withContext) for (const [i, s] of RECORDED.context.entries()) await run(s, i, false);
const same = await run(RECORDED.target, RECORDED.context.length, true);
console.log(same ? 'REPRODUCED: the same answer as recorded' : 'NOT REPRODUCED: the answer differs from the recorded one');
process.exit(same ? 0 : 1);
