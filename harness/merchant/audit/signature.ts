/**
 * Why a request's signature did not verify: the document's troubleshooting order for 401 and 403
 * made executable. Every way a client commonly gets it wrong (another merchant's id or key, the
 * production key, CR LF, a body trimmed after signing, upper-case hex, Base64, MD5) is tried; then
 * the body as the serialisers merchants use would have written it (`families.ts`: a bounded search
 * over separators, indentation, key order, escapes and number forms); the combination that
 * reproduces the X-Sign the client sent names its mistakes, a re-serialisation by its family.
 */
import { createHash, createHmac } from 'node:crypto';
import { MAX_SEARCH_BYTES, SEARCH_BUDGET_BYTES, type SearchExtent, signedCandidates } from './families.js';
import type { Diagnosis, MerchantKeys, SeenRequest } from './types.js';

const HEADERS = ['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'] as const;

export function header(r: SeenRequest, name: string): string | undefined {
  const v = r.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

type Diag = Omit<Diagnosis, 'requests'>;

/** Header problems: missing or empty ones (401 unauthorized). */
export function headerMistakes(r: SeenRequest): Diag[] {
  const out: Diag[] = [];
  for (const h of HEADERS) {
    const v = header(r, h);
    if (v === undefined) out.push({ name: 'missing-header', clause: 'client.sign.headers', detail: `${h} is missing` });
    else if (v === '')
      out.push({
        name: h === 'X-Nonce' ? 'empty-nonce' : 'empty-header',
        clause: 'client.sign.headers',
        detail: `${h} is empty${h === 'X-Nonce' ? ': the nonce must be a random non-empty string' : ''}`,
      });
  }
  return out;
}

/** The timestamp's unit and form, judged on every request (a millisecond value is also refused as stale). */
export function timestampMistakes(r: SeenRequest): Diag[] {
  const ts = header(r, 'X-Timestamp');
  if (!ts) return [];
  if (/^\d{13}$/.test(ts))
    return [
      {
        name: 'milliseconds-timestamp',
        clause: 'client.sign.timestamp-seconds',
        detail: `X-Timestamp ${ts} is in milliseconds; send Unix seconds (${ts.slice(0, 10)})`,
      },
    ];
  if (!/^\d+$/.test(ts))
    return [
      {
        name: 'formatted-timestamp',
        clause: 'client.sign.timestamp-seconds',
        detail: `X-Timestamp ${JSON.stringify(ts.slice(0, 40))} is a formatted date; send Unix seconds as a decimal string`,
      },
    ];
  return [];
}

interface Candidate {
  key: string;
  /** What this key is, for the diagnosis; undefined = the right key. */
  keyMistake?: Diag;
}

/** A body the signature may be over, byte for byte: the bytes sent, trimmed, or with a newline added. */
interface SignedBody {
  bytes: Buffer;
  mistake?: Diag;
}

function bodies(raw: Buffer): SignedBody[] {
  const out: SignedBody[] = [{ bytes: raw }];
  const text = raw.toString('utf8');
  const trimmed = text.trim();
  if (trimmed !== text)
    out.push({
      bytes: Buffer.from(trimmed),
      mistake: {
        name: 'trimmed-body',
        clause: 'client.sign.raw-body',
        detail: 'the signature is over the body trimmed of surrounding whitespace, not the bytes sent',
      },
    });
  out.push({
    bytes: Buffer.from(`${text}\n`),
    mistake: {
      name: 'trimmed-body',
      clause: 'client.sign.raw-body',
      detail: 'the signature is over the body with a trailing newline the bytes sent do not have',
    },
  });
  return out;
}

const ENCODINGS: { name?: string; detail: string; make(key: string, input: Buffer): string }[] = [
  { detail: 'lower-case hex HMAC-SHA256', make: (k, i) => createHmac('sha256', k).update(i).digest('hex') },
  {
    name: 'upper-case-hex',
    detail: 'X-Sign is upper-case hex; it must be lower-case hex',
    make: (k, i) => createHmac('sha256', k).update(i).digest('hex').toUpperCase(),
  },
  {
    name: 'base64-signature',
    detail: 'X-Sign is Base64; it must be lower-case hex',
    make: (k, i) => createHmac('sha256', k).update(i).digest('base64'),
  },
  {
    name: 'md5-signature',
    detail: 'X-Sign is an HMAC-MD5; it must be HMAC-SHA256 in lower-case hex',
    make: (k, i) => createHmac('md5', k).update(i).digest('hex'),
  },
  {
    name: 'md5-signature',
    detail: 'X-Sign is a plain MD5 of the string to sign; it must be HMAC-SHA256 keyed with the secret key',
    make: (_k, i) => createHash('md5').update(i).digest('hex'),
  },
];

/**
 * The mistakes behind a signature that did not verify, in the troubleshooting order; an
 * `unexplained-signature` diagnosis when no known mistake reproduces it.
 */
export function signatureMistakes(r: SeenRequest, keys: readonly MerchantKeys[]): Diag[] {
  const id = header(r, 'X-MerchantID') ?? '';
  const ts = header(r, 'X-Timestamp') ?? '';
  const nonce = header(r, 'X-Nonce') ?? '';
  const sign = header(r, 'X-Sign') ?? '';
  const raw = r.body ?? Buffer.alloc(0);
  const own = keys.find((k) => k.id === id);
  const out: Diag[] = [];
  if (!own)
    out.push({
      name: 'wrong-merchant-id',
      clause: 'client.sign.merchant-id',
      detail:
        `X-MerchantID ${JSON.stringify(id.slice(0, 40))} is not an identifier ` +
        `the service assigned (not a merchant name, login or internal user id)`,
    });
  const candidates: Candidate[] = [];
  if (own) candidates.push({ key: own.test });
  if (own?.production)
    candidates.push({
      key: own.production,
      keyMistake: {
        name: 'production-key',
        clause: 'client.sign.secret-key',
        detail: 'signed with the production secret key; the sandbox (test) environment has its own key',
      },
    });
  for (const k of keys) {
    if (k.id === id) continue;
    const m: Diag = own
      ? {
          name: 'another-merchants-key',
          clause: 'client.sign.secret-key',
          detail: `signed with the secret key of merchant ${k.id}, not of ${id}`,
        }
      : {
          name: 'wrong-merchant-id',
          clause: 'client.sign.merchant-id',
          detail: `the signature is made with the key of merchant ${k.id}: send that id in X-MerchantID`,
        };
    candidates.push({ key: k.test, keyMistake: m });
    if (k.production) candidates.push({ key: k.production, keyMistake: m });
  }
  const ids = own ? [id] : [id, ...keys.map((k) => k.id)];
  const variants = bodies(raw);
  for (const c of candidates) {
    for (const signerId of ids) {
      for (const sep of ['\n', '\r\n']) {
        for (const b of variants) {
          const input = Buffer.concat([Buffer.from(`${signerId}${sep}${ts}${sep}${nonce}${sep}`), b.bytes]);
          for (const e of ENCODINGS) {
            if (e.make(c.key, input) !== sign) continue;
            const found = [...out.filter((d) => !c.keyMistake || d.name !== c.keyMistake.name)];
            if (c.keyMistake) found.push(c.keyMistake);
            if (sep !== '\n')
              found.push({
                name: 'crlf-string-to-sign',
                clause: 'client.sign.string',
                detail: 'the string to sign is joined with CR LF; it must be a single line feed',
              });
            if (b.mistake) found.push(b.mistake);
            if (e.name) found.push({ name: e.name, clause: 'client.sign.lower-hex', detail: e.detail });
            // Empty: the signature itself is right; the refusal had another reason (timestamp, nonce).
            return found;
          }
        }
      }
    }
  }
  // The body alone, without merchant id, timestamp and nonce: the string to sign is wrong.
  const bodyOnly = bodyOnlyMistakes(candidates, raw, sign, out);
  if (bodyOnly) return bodyOnly;
  // The same JSON as another serialiser writes it: with the right key, id, line feeds and the encodings above.
  const extent: SearchExtent = { tried: 0, of: 0, cut: false };
  const keyed = candidates.filter((c) => !c.keyMistake || c.keyMistake.name === 'production-key');
  const prefix = Buffer.from(`${id}\n${ts}\n${nonce}\n`);
  for (const c of signedCandidates(raw, extent)) {
    for (const k of keyed) {
      const digest = createHmac('sha256', k.key).update(prefix).update(c.bytes).digest();
      const shown = [digest.toString('hex'), digest.toString('hex').toUpperCase(), digest.toString('base64')];
      const at = shown.indexOf(sign);
      if (at < 0) continue;
      const found = [...out];
      if (k.keyMistake) found.push(k.keyMistake);
      found.push({
        name: 're-serialised-body',
        clause: 'client.sign.raw-body',
        detail: 'the signature is over the same JSON written another way, not the bytes sent: sign the exact bytes you send',
        reserialisation: c.differs,
      });
      const e = ENCODINGS[at];
      if (e?.name) found.push({ name: e.name, clause: 'client.sign.lower-hex', detail: e.detail });
      return found;
    }
  }
  // Nothing reproduces it: evidence that the signature does not verify, not of which rule was broken.
  const searched = extent.cut
    ? `; the search over re-serialisations stopped at its bound (` +
      `${SEARCH_BUDGET_BYTES / 1024 / 1024} MiB written) after ${extent.tried} of ${extent.of} forms`
    : raw.length > MAX_SEARCH_BYTES
      ? `; the body is over ${MAX_SEARCH_BYTES / 1024} KiB, so it was not re-serialised`
      : '';
  return [
    ...out,
    {
      name: 'unexplained-signature',
      clause: 'client.sign.verifies',
      detail:
        'X-Sign does not verify and no common mistake reproduces it (checked: merchant id, ' +
        'test/production key, CR LF, body alone, the body as Python, Java, Go, PHP, Ruby, C# and JavaScript ' +
        'serialisers write it (separators, indentation, key order, escapes, number forms), trimmed body, ' +
        `upper-case hex, Base64, MD5)${searched}: check the secret key and the exact string to sign`,
    },
  ];
}

/** X-Sign over the body alone, without merchant id, timestamp and nonce. */
function bodyOnlyMistakes(candidates: Candidate[], raw: Buffer, sign: string, out: Diag[]): Diag[] | undefined {
  for (const c of candidates) {
    for (const e of ENCODINGS) {
      if (e.make(c.key, raw) !== sign) continue;
      const found = [...out.filter((d) => !c.keyMistake || d.name !== c.keyMistake.name)];
      if (c.keyMistake) found.push(c.keyMistake);
      found.push({
        name: 'body-only-signature',
        clause: 'client.sign.string',
        detail: 'X-Sign is an HMAC of the body alone; the string to sign is merchant id LF timestamp LF nonce LF raw body',
      });
      if (e.name) found.push({ name: e.name, clause: 'client.sign.lower-hex', detail: e.detail });
      return found;
    }
  }
  return undefined;
}
