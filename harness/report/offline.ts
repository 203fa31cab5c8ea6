/**
 * A report people open from a file must not call anyone: no analytics, no web fonts, no CDN. This
 * finds every http(s)/ws(s) URL to a host that is not this machine in a context where a browser
 * would fetch it by itself — script/link/img/iframe/source/embed/object attributes, CSS url() and
 * @import, fetch(), import(), XMLHttpRequest.open, sendBeacon, WebSocket, EventSource, Worker —
 * in the HTML and inside every inlined data: script or stylesheet. Plain links (<a href>) a
 * reader may click are not requests and are not reported.
 */
import { createHash } from 'node:crypto';

export interface ThirdPartyReference {
  /** Where it was found: "html", or "data:text/javascript #2". */
  where: string;
  /** The construct, e.g. `<script src>`, `fetch()`. */
  context: string;
  url: string;
}

const LOCAL_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1|0\.0\.0\.0|[a-z0-9.-]+\.localhost)$/i;

export function isLocalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return LOCAL_HOST.test(u.hostname);
  } catch {
    return false;
  }
}

const URL_RE = String.raw`(?:https?|wss?):\/\/[^\s"'<>)\x60\\]+`;

const HTML_PATTERNS: { context: string; re: RegExp }[] = [
  { context: '<script src>', re: new RegExp(String.raw`<script\b[^>]*?\bsrc\s*=\s*["']?(${URL_RE})`, 'gi') },
  { context: '<link href>', re: new RegExp(String.raw`<link\b[^>]*?\bhref\s*=\s*["']?(${URL_RE})`, 'gi') },
  { context: '<img src>', re: new RegExp(String.raw`<img\b[^>]*?\b(?:src|srcset)\s*=\s*["']?(${URL_RE})`, 'gi') },
  {
    context: '<iframe/source/embed/video/audio src>',
    re: new RegExp(String.raw`<(?:iframe|source|embed|video|audio|track|input)\b[^>]*?\bsrc\s*=\s*["']?(${URL_RE})`, 'gi'),
  },
  { context: '<object data>', re: new RegExp(String.raw`<object\b[^>]*?\bdata\s*=\s*["']?(${URL_RE})`, 'gi') },
  { context: '<meta refresh>', re: new RegExp(String.raw`<meta\b[^>]*?content\s*=\s*["'][^"']*url=(${URL_RE})`, 'gi') },
];

const CODE_PATTERNS: { context: string; re: RegExp }[] = [
  { context: 'CSS url()', re: new RegExp(String.raw`url\(\s*["']?(${URL_RE})`, 'gi') },
  { context: 'CSS @import', re: new RegExp(String.raw`@import\s+(?:url\()?\s*["']?(${URL_RE})`, 'gi') },
  { context: 'fetch()', re: new RegExp(String.raw`\bfetch\(\s*["'\x60](${URL_RE})`, 'gi') },
  { context: 'import()', re: new RegExp(String.raw`\bimport\(\s*["'\x60](${URL_RE})`, 'gi') },
  { context: 'XMLHttpRequest.open', re: new RegExp(String.raw`\.open\(\s*["'][A-Z]+["']\s*,\s*["'\x60](${URL_RE})`, 'gi') },
  { context: 'sendBeacon()', re: new RegExp(String.raw`sendBeacon\(\s*["'\x60](${URL_RE})`, 'gi') },
  {
    context: 'WebSocket/EventSource/Worker',
    re: new RegExp(String.raw`new\s+(?:WebSocket|EventSource|Worker|SharedWorker)\(\s*["'\x60](${URL_RE})`, 'gi'),
  },
  { context: 'script element src', re: new RegExp(String.raw`\.src\s*=\s*["'\x60](${URL_RE})`, 'gi') },
  {
    context: 'analytics',
    re: new RegExp(
      String.raw`((?:https?:)?\/\/(?:www\.)?(?:googletagmanager|google-analytics|doubleclick|segment|hotjar|plausible|` +
        String.raw`fonts\.googleapis|fonts\.gstatic)\.[a-z]+[^\s"'<>)]*)`,
      'gi',
    ),
  },
];

function scan(text: string, where: string, patterns: { context: string; re: RegExp }[]): ThirdPartyReference[] {
  const out: ThirdPartyReference[] = [];
  for (const { context, re } of patterns) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const url = m[1]!;
      const absolute = url.startsWith('//') ? `https:${url}` : url;
      if (!isLocalUrl(absolute)) out.push({ where, context, url });
    }
  }
  return out;
}

/**
 * What a scan of one inlined data: document found, kept between runs (scan-cache.ts): Allure's app script is 2.6 MB
 * of JavaScript that changes only with Allure, and scanning it was most of the check's time.
 */
export interface ScanCache {
  get(key: string): Omit<ThirdPartyReference, 'where'>[] | undefined;
  set(key: string, found: Omit<ThirdPartyReference, 'where'>[]): void;
}

/** Changes with the patterns: a cached scan made with other patterns is not used. */
const SCAN_VERSION = createHash('sha256')
  .update([...HTML_PATTERNS, ...CODE_PATTERNS].map((p) => `${p.context}\0${p.re.source}\0${p.re.flags}`).join('\n'))
  .update(LOCAL_HOST.source)
  .digest('hex');

/**
 * Every third-party reference a browser would follow by itself when opening this HTML. With a cache, an inlined
 * document already scanned (same type, same bytes, same patterns) is not decoded and scanned again.
 */
export function thirdPartyReferences(html: string, cache?: ScanCache): ThirdPartyReference[] {
  const out = [...scan(html, 'html', HTML_PATTERNS), ...scan(html, 'html', CODE_PATTERNS)];
  let n = 0;
  for (const m of html.matchAll(
    /data:(text\/javascript|application\/javascript|text\/css|text\/html|image\/svg\+xml)(?:;charset=[\w-]+)?;base64,([A-Za-z0-9+/=]+)/g,
  )) {
    n += 1;
    const where = `data:${m[1]} #${n}`;
    const key = cache && createHash('sha256').update(SCAN_VERSION).update('\0').update(m[1]!).update('\0').update(m[2]!).digest('hex');
    let found = key === undefined ? undefined : cache?.get(key);
    if (!found) {
      const inner = Buffer.from(m[2]!, 'base64').toString('utf8');
      const markup = m[1] === 'text/html' || m[1] === 'image/svg+xml';
      found = [...scan(inner, where, CODE_PATTERNS), ...(markup ? scan(inner, where, HTML_PATTERNS) : [])].map(({ context, url }) => ({
        context,
        url,
      }));
      if (key !== undefined) cache?.set(key, found);
    }
    out.push(...found.map((r) => ({ where, ...r })));
  }
  return out;
}

/** The page's own Content-Security-Policy: nothing may be loaded from anywhere but the page itself. */
export const OFFLINE_CSP =
  "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' data: blob:; style-src " +
  "'unsafe-inline' data: blob:; img-src data: blob:; font-src data:; connect-src data: blob:; " +
  "worker-src blob: data:; media-src data: blob:; frame-src data: blob:; form-action 'none'";

/**
 * Makes Allure's single-file page self-contained: removes the analytics the stock template always
 * includes (a Google Tag Manager script and its gtag() call) and adds a Content-Security-Policy that
 * forbids loading anything from elsewhere, should a later Allure version add another call.
 */
export function makeOffline(html: string): string {
  let out = html
    .replace(/<script\b[^>]*\bsrc\s*=\s*["']https?:\/\/www\.googletagmanager\.com\/[^"']*["'][^>]*>\s*<\/script>/gi, '')
    .replace(/<script\b[^>]*>(?:(?!<\/script>)[\s\S])*?\bgtag\s*\((?:(?!<\/script>)[\s\S])*?<\/script>/gi, '');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${OFFLINE_CSP}">`;
  if (!out.includes('http-equiv="Content-Security-Policy"')) out = out.replace(/<head([^>]*)>/i, `<head$1>\n    ${meta}`);
  return out;
}
