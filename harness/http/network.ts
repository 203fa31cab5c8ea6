/**
 * The network between the kit and its target: TLS (the profile's `http.tls`: a private CA, a client certificate for
 * mutual TLS, the name to verify) and proxies (`HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY`, either case, read as undici's
 * EnvHttpProxyAgent reads them). Every connection the kit opens to a target takes these: the undici client and its raw
 * socket (harness/http/client*.ts), the round-trip HEADs (harness/run/round-trip.ts), the reachability check of `run`.
 *
 * A connection that fails for a reason of this network (an unknown CA, an expired certificate, a name mismatch, a
 * client certificate refused by the server's alert, a proxy refusing CONNECT) is named by `networkProblem`, with the
 * profile field to fix and how: the doctor says it instead of "set baseUrl".
 *
 * Loopback targets (localhost, 127.0.0.0/8, ::1: the embedded reference) are never sent through a proxy.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { connect as tlsConnect, createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/** What `tls.connect` takes: one secure context, made once (a context per connection costs up to 0.3 s with a CA). */
export interface TlsConnect {
  secureContext: SecureContext;
  servername?: string;
}

/** The profile's `http.tls`, resolved (file contents, never paths), for every connection to the target. */
export interface TlsOptions {
  connect: TlsConnect;
  /**
   * For the probe that tells a refused certificate from another failure: the same trust, with or without the client
   * certificate, capped at a TLS version (a version cap is the context's, so a context of its own, made when asked).
   */
  probe(maxVersion: 'TLSv1.2' | 'TLSv1.3', withIdentity: boolean): TlsConnect;
  /** A client certificate (cert or pfx) is presented. */
  clientCert: boolean;
}

/** The profile's `http.tls` as written (version 4). */
export interface TlsProfile {
  ca?: string;
  caEnv?: string;
  cert?: string;
  certEnv?: string;
  key?: string;
  keyEnv?: string;
  pfx?: string;
  pfxEnv?: string;
  passphrase?: string;
  passphraseEnv?: string;
  servername?: string;
}

/** How the kit reaches a target: TLS options and the proxy settings of the environment it was started in. */
export interface Network {
  tls?: TlsOptions;
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY (either case), as read when the network was made. */
  proxy: ProxyEnv;
}

export interface ProxyEnv {
  http?: string;
  https?: string;
  noProxy?: string;
}

export function proxyEnv(env: NodeJS.ProcessEnv = process.env): ProxyEnv {
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  const out: ProxyEnv = {};
  const http = pick('http_proxy', 'HTTP_PROXY');
  const https = pick('https_proxy', 'HTTPS_PROXY');
  const no = pick('no_proxy', 'NO_PROXY');
  if (http) out.http = http;
  if (https) out.https = https;
  if (no) out.noProxy = no;
  return out;
}

export function makeNetwork(tls: TlsOptions | undefined, env: NodeJS.ProcessEnv = process.env): Network {
  return { ...(tls ? { tls } : {}), proxy: proxyEnv(env) };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

/**
 * The proxy a request to `url` goes through, or undefined: HTTPS_PROXY for https (HTTP_PROXY when it is unset), HTTP_PROXY
 * for http; none for a host NO_PROXY lists (a name, a suffix of it, `*`, with an optional port) or a loopback host.
 */
export function proxyFor(url: URL, proxy: ProxyEnv): URL | undefined {
  return proxyOf(url, proxy)?.url;
}

/** The proxy for `url` and the variable that named it. */
export function proxyOf(url: URL, proxy: ProxyEnv): { url: URL; variable: 'HTTPS_PROXY' | 'HTTP_PROXY' } | undefined {
  const variable = url.protocol === 'https:' && proxy.https ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const chosen = url.protocol === 'https:' ? (proxy.https ?? proxy.http) : proxy.http;
  if (!chosen) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK.test(host)) return undefined;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const raw of (proxy.noProxy ?? '').split(/[,\s]/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return undefined;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry)!;
    const name = m[1]!.replace(/^\*?\./, '');
    if (m[2] && Number(m[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  try {
    return { url: new URL(chosen.includes('://') ? chosen : `http://${chosen}`), variable };
  } catch {
    return undefined;
  }
}

/** A proxy URL as it may be shown: without its credentials. */
export function shownProxy(u: URL): string {
  return `${u.protocol}//${u.host}`;
}

// ---------------------------------------------------------------------------------------------
// The profile's http.tls, resolved

export interface ResolvedTls {
  options?: TlsOptions;
  /** Key material and passphrases: what the redactor must hide. */
  secrets: string[];
  /** One line each, naming the field; never a secret. */
  problems: string[];
}

type Material = 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase';

/**
 * Reads each file `http.tls` names (a path relative to the profile's folder, or an `…Env` variable holding a path or
 * the PEM itself; for pfx, a path or the file in Base64) and proves the whole with `tls.createSecureContext`, so a key
 * that does not match its certificate or a wrong passphrase is said when the profile loads, not at the first request.
 */
export function resolveTls(tls: TlsProfile | undefined, env: NodeJS.ProcessEnv, profileDir: string): ResolvedTls {
  const out: ResolvedTls = { secrets: [], problems: [] };
  if (!tls) return out;
  const read = (field: Material): string | Buffer | undefined => {
    const literal = tls[field];
    const envName = tls[`${field}Env` as const];
    if (field === 'passphrase') {
      if (literal !== undefined) return literal;
      if (envName === undefined) return undefined;
      const v = env[envName];
      if (v === undefined || v === '') out.problems.push(`http.tls.passphraseEnv: environment variable ${envName} is not set`);
      return v || undefined;
    }
    let path: string | undefined;
    if (literal !== undefined) path = isAbsolute(literal) ? literal : resolve(profileDir, literal);
    else if (envName !== undefined) {
      const v = env[envName];
      if (v === undefined || v === '') {
        out.problems.push(`http.tls.${field}Env: environment variable ${envName} is not set`);
        return undefined;
      }
      if (v.includes('-----BEGIN ')) return v;
      if (field === 'pfx' && !/[\\/]/.test(v) && /^[A-Za-z0-9+/=\s]{64,}$/.test(v)) return Buffer.from(v, 'base64');
      path = isAbsolute(v) ? v : resolve(v);
    } else return undefined;
    const where = literal !== undefined ? `http.tls.${field}` : `http.tls.${field}Env (${envName})`;
    try {
      const bytes = readFileSync(path);
      if (field === 'pfx') return bytes;
      const text = bytes.toString('utf8');
      if (!text.includes('-----BEGIN ')) {
        out.problems.push(`${where}: ${path} is not a PEM file (no "-----BEGIN" line)`);
        return undefined;
      }
      return text;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      out.problems.push(`${where}: cannot read ${path}${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`);
      return undefined;
    }
  };
  const ca = read('ca');
  const cert = read('cert');
  const key = read('key');
  const pfx = read('pfx');
  const passphrase = read('passphrase');
  if (out.problems.length) return out;
  // Node's `ca` replaces its whole trust: the profile's CA goes beside Node's own and NODE_EXTRA_CA_CERTS's.
  const trust = typeof ca === 'string' ? { ca: [...rootCertificates, ...extraCaCerts(env), ca] } : {};
  const identity: { cert?: string; key?: string; pfx?: Buffer; passphrase?: string } = {};
  if (typeof cert === 'string') identity.cert = cert;
  if (typeof key === 'string') {
    identity.key = key;
    out.secrets.push(key);
  }
  if (pfx !== undefined) {
    identity.pfx = Buffer.isBuffer(pfx) ? pfx : Buffer.from(pfx);
    out.secrets.push(identity.pfx.toString('base64'));
  }
  if (typeof passphrase === 'string') {
    identity.passphrase = passphrase;
    out.secrets.push(passphrase);
  }
  const servername = tls.servername !== undefined ? { servername: tls.servername } : {};
  let secureContext: SecureContext;
  try {
    secureContext = createSecureContext({ ...trust, ...identity });
  } catch (err) {
    // OpenSSL's reason names what is wrong (key values mismatch, bad decrypt, no start line), never the material.
    const reason = String((err as Error).message)
      .split('\n')[0]!
      .slice(0, 160);
    out.problems.push(`http.tls: the certificate, key and passphrase do not make a TLS identity: ${scrubbed(reason, out.secrets)}`);
    return out;
  }
  const probes = new Map<string, TlsConnect>();
  out.options = {
    connect: { secureContext, ...servername },
    probe: (maxVersion, withIdentity) => {
      const k = `${maxVersion} ${withIdentity}`;
      if (!probes.has(k))
        probes.set(k, { secureContext: createSecureContext({ ...trust, ...(withIdentity ? identity : {}), maxVersion }), ...servername });
      return probes.get(k)!;
    },
    clientCert: identity.cert !== undefined || identity.pfx !== undefined,
  };
  return out;
}

function scrubbed(text: string, secrets: readonly string[]): string {
  return secrets.filter((s) => s.length >= 4).reduce((acc, s) => acc.split(s).join('***'), text);
}

/**
 * The certificates NODE_EXTRA_CA_CERTS adds to Node's trust: kept when the profile gives a CA of its own (Node's `ca`
 * option replaces the whole trust store, and a run that worked with the variable must keep working with http.tls.ca).
 */
function extraCaCerts(env: NodeJS.ProcessEnv): string[] {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Failures of the network, named

export type NetworkProblemKind =
  | 'unknown-ca'
  | 'certificate-expired'
  | 'certificate-not-yet-valid'
  | 'name-mismatch'
  | 'client-certificate-refused'
  | 'proxy-refused'
  | 'proxy-unreachable';

export interface NetworkProblem {
  kind: NetworkProblemKind;
  /** What to fix: a profile field (http.tls.ca, …), baseUrl, or the environment variable (HTTPS_PROXY). */
  field: string;
  /** One line: what happened. */
  what: string;
  /** One line: the change to make. */
  fix: string;
}

const UNKNOWN_CA = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** The server's TLS alerts that refuse the client's certificate (or its absence), as Node's error codes name them. */
const CLIENT_CERT_ALERT = new Set(
  [
    'TLSV13_ALERT_CERTIFICATE_REQUIRED',
    'SSLV3_ALERT_BAD_CERTIFICATE',
    'TLSV1_ALERT_UNKNOWN_CA',
    'SSLV3_ALERT_HANDSHAKE_FAILURE',
    'TLSV1_ALERT_ACCESS_DENIED',
    'SSLV3_ALERT_CERTIFICATE_UNKNOWN',
    'SSLV3_ALERT_UNSUPPORTED_CERTIFICATE',
    'SSLV3_ALERT_CERTIFICATE_REVOKED',
    'SSLV3_ALERT_CERTIFICATE_EXPIRED',
    'TLSV1_ALERT_DECRYPT_ERROR',
  ].map((alert) => `ERR_SSL_${alert}`),
);

export interface ProblemContext {
  /** The profile gave a client certificate (cert or pfx). */
  clientCert: boolean;
  /** The proxy the request went through, if any, and the variable that named it. */
  proxy?: URL;
  proxyVar?: 'HTTPS_PROXY' | 'HTTP_PROXY';
}

/** A connection failure of this network, named with its fix; undefined for any other failure. */
export function networkProblem(code: string, message: string, c: ProblemContext): NetworkProblem | undefined {
  if (UNKNOWN_CA.has(code)) {
    return {
      kind: 'unknown-ca',
      field: 'http.tls.ca',
      what: `the target's certificate is signed by a CA this machine does not trust (${code})`,
      fix:
        "set http.tls.ca to the PEM file of the CA that signed the target's " +
        'certificate (or start the kit with NODE_EXTRA_CA_CERTS=<that file>)',
    };
  }
  if (code === 'CERT_HAS_EXPIRED') {
    return {
      kind: 'certificate-expired',
      field: 'baseUrl',
      what: `the target's certificate has expired (${code})`,
      fix: 'the target must serve a valid certificate: ask its operator to renew it (the kit never skips verification)',
    };
  }
  if (code === 'CERT_NOT_YET_VALID') {
    return {
      kind: 'certificate-not-yet-valid',
      field: 'baseUrl',
      what: `the target's certificate is not valid yet (${code}): a clock is wrong here or there`,
      fix: "check this machine's clock, or ask the target's operator for a certificate valid now",
    };
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return {
      kind: 'name-mismatch',
      field: 'http.tls.servername',
      what: `the target's certificate is not issued for the host name the kit connected to (${message.slice(0, 160)})`,
      fix: 'use in baseUrl a host name the certificate names, or set http.tls.servername to the name it is issued for',
    };
  }
  if (CLIENT_CERT_ALERT.has(code)) {
    return {
      kind: 'client-certificate-refused',
      field: c.clientCert ? 'http.tls.cert' : 'http.tls',
      what: c.clientCert
        ? `the target refused the client certificate (its TLS alert: ${code})`
        : `the target asks for a client certificate and none was given (its TLS alert: ${code})`,
      fix: c.clientCert
        ? 'set http.tls.cert and http.tls.key (or http.tls.pfx) to the certificate the target trusts for this kit'
        : 'set http.tls.cert and http.tls.key (or http.tls.pfx) to the client certificate the vendor issued',
    };
  }
  const refused = /Proxy response \((\d{3})\) !== 200/.exec(message) ?? /^proxy answered CONNECT with HTTP (\d{3})/.exec(message);
  if (refused && c.proxy) {
    const status = refused[1]!;
    return {
      kind: 'proxy-refused',
      field: c.proxyVar ?? 'HTTPS_PROXY',
      what: `the proxy ${shownProxy(c.proxy)} refused to open a tunnel to the target (CONNECT answered HTTP ${status})`,
      fix:
        status === '407'
          ? 'the proxy wants credentials: put them in the proxy URL (http://user:password@host:port)'
          : "ask the proxy's operator to allow CONNECT to the target's host and port, or list the host in NO_PROXY",
    };
  }
  if (c.proxy && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT')) {
    return {
      kind: 'proxy-unreachable',
      field: c.proxyVar ?? 'HTTPS_PROXY',
      what: `the proxy ${shownProxy(c.proxy)} cannot be reached (${code})`,
      fix: 'correct HTTPS_PROXY / HTTP_PROXY, or unset them (or list the target in NO_PROXY) when no proxy is needed',
    };
  }
  return undefined;
}

/**
 * Why a TLS connection was closed before any answer, asked on connections of its own (sending nothing). In TLS 1.3 a
 * server checks the client's certificate after the client has finished its handshake, so a request meets a closed
 * connection ("other side closed") and never reads the server's alert; in TLS 1.2 the check is part of the handshake.
 * So: a handshake capped at TLS 1.2 first (TLS 1.3 when the server takes nothing older), its alert named; a server that
 * resets the connection instead (Node's does) while the kit presents a certificate, and completes the handshake, or asks
 * for a certificate, without one, refuses that certificate. Direct connections only (a proxied one is told by its own
 * error); undefined when nothing is learnt within `ms` per attempt.
 */
export async function tlsAlertProbe(url: URL, network: Network, ms = 1500): Promise<NetworkProblem | undefined> {
  if (url.protocol !== 'https:' || proxyFor(url, network.proxy)) return undefined;
  const ctx: ProblemContext = { clientCert: network.tls?.clientCert === true };
  const tls12 = await handshake(url, network.tls?.probe('TLSv1.2', true), 'TLSv1.2', ms);
  const named = tls12.code ? networkProblem(tls12.code, tls12.message, ctx) : undefined;
  if (named) return named;
  if (tls12.code === 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' || tls12.code === 'ERR_SSL_UNSUPPORTED_PROTOCOL') {
    const tls13 = await handshake(url, network.tls?.probe('TLSv1.3', true), 'TLSv1.3', ms);
    return tls13.code ? networkProblem(tls13.code, tls13.message, ctx) : undefined;
  }
  if (ctx.clientCert && !tls12.secure && (tls12.code === 'ECONNRESET' || tls12.code === undefined)) {
    const without = await handshake(url, network.tls?.probe('TLSv1.2', false), 'TLSv1.2', ms);
    const asked = without.code ? networkProblem(without.code, without.message, { clientCert: false }) : undefined;
    if (without.secure || asked?.kind === 'client-certificate-refused') {
      return {
        kind: 'client-certificate-refused',
        field: 'http.tls.cert',
        what:
          'the target resets the connection when the kit presents its client ' +
          'certificate, and not without one: it does not accept this certificate',
        fix: 'set http.tls.cert and http.tls.key (or http.tls.pfx) to the certificate the target trusts for this kit',
      };
    }
  }
  return undefined;
}

interface Handshake {
  secure: boolean;
  code?: string;
  message: string;
}

/** One TLS connection with these options, capped at a version, read until it fails, closes, or `ms` passes. */
function handshake(url: URL, tls: TlsConnect | undefined, maxVersion: 'TLSv1.2' | 'TLSv1.3', ms: number): Promise<Handshake> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || 443;
  const servername = tls?.servername ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
  return new Promise((resolve) => {
    const seen: Handshake = { secure: false, message: '' };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(seen);
    };
    const socket = tlsConnect({ ...tls, host, port, maxVersion, ...(servername ? { servername } : {}) });
    const timer = setTimeout(finish, ms);
    socket.on('secureConnect', () => {
      seen.secure = true;
      // TLS 1.2 has checked the client's certificate in the handshake; TLS 1.3 says so one round trip after it.
      if (socket.getProtocol() !== 'TLSv1.3') finish();
      else setTimeout(finish, Math.min(ms, 300)).unref();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      seen.code = err.code;
      seen.message = err.message;
      finish();
    });
    socket.on('close', () => setImmediate(finish));
    socket.resume();
  });
}
