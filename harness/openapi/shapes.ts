/**
 * Schemas as vendors compose them, read as one object each: `allOf` merged (properties, required, descriptions),
 * `oneOf`/`anyOf` alternatives with the method each is for (a discriminator's property set to one value, or a method
 * named in its title), and each operation's effective path (the server's path prefix, path parameters of any name read
 * back to the interface's numbers).
 */
import { PATH_NUMBERS } from '../profile/endpoint-path.js';

export type S = Record<string, unknown>;

const merged = new WeakMap<S, S>();

/** The schema with its `allOf` parts merged in (recursively, at this level); the parts' own alternatives are kept. */
export function flat(s: S | undefined, depth = 0): S {
  if (!s || typeof s !== 'object') return {};
  const known = merged.get(s);
  if (known) return known;
  const parts = Array.isArray(s['allOf']) ? (s['allOf'] as S[]) : [];
  if (parts.length === 0 || depth > 10) return s;
  const out: S = { ...s };
  delete out['allOf'];
  const properties: Record<string, S> = { ...((s['properties'] as Record<string, S> | undefined) ?? {}) };
  const required = new Set<string>((s['required'] as string[] | undefined) ?? []);
  for (const part of parts) {
    const f = flat(part, depth + 1);
    for (const [k, v] of Object.entries((f['properties'] as Record<string, S> | undefined) ?? {}))
      properties[k] = properties[k] ? { allOf: [properties[k]!, v] } : v;
    for (const r of (f['required'] as string[] | undefined) ?? []) required.add(r);
    // Every other keyword a part says (type, description, examples, minimum, maximum, oneOf, a discriminator…): the
    // schema's own wins.
    for (const [k, x] of Object.entries(f)) if (k !== 'properties' && k !== 'required' && out[k] === undefined) out[k] = x;
  }
  if (Object.keys(properties).length) out['properties'] = properties;
  if (required.size) out['required'] = [...required];
  merged.set(s, out);
  return out;
}

/** A schema's properties, each flattened. */
export function propsOf(s: S | undefined): Record<string, S> {
  const raw = (flat(s)['properties'] as Record<string, S> | undefined) ?? {};
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, flat(v)]));
}

/** The single value a schema allows (`const`, or an enum of one). */
export function constOf(s: S | undefined): string | undefined {
  const f = flat(s);
  if (typeof f['const'] === 'string') return f['const'];
  const e = f['enum'];
  return Array.isArray(e) && e.length === 1 && typeof e[0] === 'string' ? e[0] : undefined;
}

/** `oneOf`/`anyOf` alternatives of a schema, flattened, each with the method it is for where it says one. */
export function variantsOf(s: S | undefined, methods: readonly string[] = []): { schema: S; method?: string }[] {
  const f = flat(s);
  const alts = ((f['oneOf'] ?? f['anyOf']) as S[] | undefined) ?? [];
  const by = (f['discriminator'] as { propertyName?: string } | undefined)?.propertyName;
  return alts.map((alt) => {
    const schema = flat(alt);
    const props = propsOf(schema);
    let method = by ? constOf(props[by]) : undefined;
    method ??= Object.entries(props)
      .filter(([k]) => /method/.test(k))
      .map(([, v]) => constOf(v))
      .find(Boolean);
    if (!method) {
      const words = `${String(schema['title'] ?? '')} ${String(schema['description'] ?? '')}`;
      method = methods.find((m) => new RegExp(`(^|[^A-Z_])${m}([^A-Z_]|$)`).test(words));
    }
    return { schema, ...(method ? { method } : {}) };
  });
}

/**
 * The path part of the server an operation is served under (operation, then path item, then document), less the base
 * path `base` the target's base URL already ends with: a profile's paths are relative to its base URL.
 */
export function serverPrefix(doc: S, item: S, op: S, base = ''): string {
  const servers = [op['servers'], item['servers'], doc['servers']].find((x) => Array.isArray(x) && x.length) as S[] | undefined;
  const server = servers?.[0];
  if (!server || typeof server['url'] !== 'string') return '';
  const vars = (server['variables'] ?? {}) as Record<string, { default?: string }>;
  const url = server['url'].replace(/\{(\w+)\}/g, (_, v: string) => String(vars[v]?.default ?? ''));
  let path: string;
  try {
    path = new URL(url, 'http://host.invalid').pathname;
  } catch {
    return '';
  }
  return withoutBase(path.replace(/\/+$/, ''), base);
}

/** The path part of a base URL, without its trailing slash ('' for none or for no URL). */
export function basePathOf(baseUrl: string | undefined): string {
  if (!baseUrl) return '';
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** `path` inside the base path `base` (whole segments), else `path` as it is. */
function withoutBase(path: string, base: string): string {
  const b = base.replace(/\/+$/, '');
  if (!b) return path;
  if (path === b) return '';
  return path.startsWith(`${b}/`) ? path.slice(b.length) : path;
}

const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/**
 * The interface's number a path parameter stands for: its name (snake or camel case), else the one its description
 * names in code (`payout_no`); undefined when neither says.
 */
export function pathNumberOf(param: S): string | undefined {
  const name = String(param['name'] ?? '');
  const known = (n: string) => (PATH_NUMBERS as readonly string[]).includes(n);
  if (known(name)) return name;
  if (known(snake(name))) return snake(name);
  const named = [...String(param['description'] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1]!).filter(known);
  return named.length === 1 ? named[0] : undefined;
}

/**
 * A path as the interface's profile writes it: the server's prefix before it, each path parameter renamed to the number
 * it stands for; `unknown` lists the parameters no name or description places.
 */
export function effectivePath(doc: S, rawPath: string, item: S, op: S, base = ''): { path: string; unknown: string[] } {
  const params = [...((item['parameters'] as S[] | undefined) ?? []), ...((op['parameters'] as S[] | undefined) ?? [])].filter(
    (p) => p && p['in'] === 'path',
  );
  const unknown: string[] = [];
  const path = rawPath.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const param = params.find((p) => p['name'] === name) ?? { name };
    const n = pathNumberOf(param);
    if (!n) unknown.push(name);
    return n ? `{${n}}` : whole;
  });
  return { path: `${serverPrefix(doc, item, op, base)}${path}`, unknown };
}
