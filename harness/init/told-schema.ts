/**
 * A told fact's profile path read through the profile's JSON Schema: where its segments are (a map's key may hold a dot,
 * `internalFieldNames.card.exp_month` is the key `card.exp_month` of a map of strings, as docs/generated/profile.md
 * shows such an entry: `internalFieldNames.*`), and which JSON types the schema takes there (a string field keeps a
 * hint's "0.30" as the text it is, never the number 0.3).
 */
import { profileSchema } from '../profile/schema.js';

type Node = Record<string, unknown>;

const SCALAR = new Set(['string', 'number', 'integer', 'boolean', 'null']);

function isNode(v: unknown): v is Node {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** A node with its `$ref` followed (the schema's own `#/$defs/…` only), and the branches of its oneOf/anyOf/allOf. */
function branches(node: Node, root: Node, depth = 0): Node[] {
  if (depth > 8) return [node];
  let n = node;
  const ref = n['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((cur, k) => (isNode(cur) ? cur[k] : undefined), root);
    if (isNode(target)) n = { ...target, ...Object.fromEntries(Object.entries(n).filter(([k]) => k !== '$ref')) };
  }
  const out: Node[] = [n];
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const) {
    const list = n[k];
    if (Array.isArray(list)) for (const b of list) if (isNode(b)) out.push(...branches(b, root, depth + 1));
  }
  return out;
}

/** The JSON types a set of nodes takes (undefined: any, as a template's free-form fields). */
function typesOf(nodes: Node[], root: Node): Set<string> | undefined {
  const out = new Set<string>();
  for (const b of nodes.flatMap((n) => branches(n, root))) {
    const t = b['type'];
    if (typeof t === 'string') out.add(t);
    else if (Array.isArray(t)) for (const x of t) out.add(String(x));
  }
  return out.size ? out : undefined;
}

/** The segment that stands for a list's items in a path given to schemaTypesAt (`pricePoints.tiers.[]`). */
export const ITEMS = '[]';

interface Walk {
  segments: string[];
  /** The schema nodes at the path's end; empty where the path leaves what the schema describes. */
  nodes: Node[];
}

const cache = new Map<string, Walk>();

function walk(path: string): Walk {
  const hit = cache.get(path);
  if (hit) return hit;
  const root = profileSchema() as Node;
  const parts = path.split('.');
  const segments: string[] = [];
  let nodes: Node[] = [root];
  for (let i = 0; i < parts.length; i++) {
    const seg = parts[i]!;
    const all = nodes.flatMap((n) => branches(n, root));
    if (seg === ITEMS) {
      segments.push(seg);
      nodes = all.flatMap((n) => (isNode(n['items']) ? [n['items'] as Node] : []));
      continue;
    }
    const named = all.flatMap((n) =>
      isNode(n['properties']) && isNode((n['properties'] as Node)[seg]) ? [(n['properties'] as Node)[seg] as Node] : [],
    );
    if (named.length) {
      segments.push(seg);
      nodes = named;
      continue;
    }
    const values = all.flatMap((n) => {
      const extra = n['additionalProperties'];
      const patterns = isNode(n['patternProperties']) ? Object.values(n['patternProperties'] as Node).filter(isNode) : [];
      return [...(isNode(extra) ? [extra] : []), ...patterns];
    });
    const types = typesOf(values, root);
    // A map whose values are scalars has nothing below its keys: the rest of the path is one key, dots and all.
    if (values.length && types && [...types].every((t) => SCALAR.has(t))) {
      segments.push(parts.slice(i).join('.'));
      nodes = values;
      break;
    }
    segments.push(seg);
    nodes = values;
  }
  const w = { segments, nodes };
  cache.set(path, w);
  return w;
}

/** The segments of a dotted profile path, a map's key kept whole where the schema says nothing lies below it. */
export function profileSegments(path: string): string[] {
  return walk(path).segments;
}

/** A dotted path from segments: the inverse of profileSegments. */
export function joinSegments(segments: readonly string[]): string {
  return segments.join('.');
}

/** The JSON types the profile's schema takes at `path`; undefined where it does not say (a template's fields, an unknown path). */
export function schemaTypesAt(path: string): Set<string> | undefined {
  const w = walk(path);
  if (w.nodes.length === 0) return undefined;
  return typesOf(w.nodes, profileSchema() as Node);
}

/** Whether `path` is `parent` or lies below it, segment by segment (`a.bc` is not below `a.b`). */
export function isAtOrUnder(path: string, parent: string): boolean {
  const p = profileSegments(path);
  const q = profileSegments(parent);
  return q.length <= p.length && q.every((s, i) => p[i] === s);
}

/** A number's text, kept until the schema says whether the field takes a number or a string. */
const NUMBER_MARK = '\u0000number:';

/**
 * JSON text read as the profile's schema types it: a number written where the schema takes a string (a fee, a
 * distance, a tier: `0.30`) is the text written, `"0.30"`, never 0.3 (which reads "0.3" and is refused); a number
 * where it takes a number, or where it does not say (a template's free-form fields), is the number. `path` is where the
 * text's value goes in the profile ('' for a whole partial profile). Throws SyntaxError as JSON.parse does.
 */
export function parseTypedJson(text: string, path: string): unknown {
  // Every number outside a string becomes a marked string holding its text.
  const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (tok) =>
    tok.startsWith('"') ? tok : JSON.stringify(`${NUMBER_MARK}${tok}`),
  );
  return typed(JSON.parse(marked) as unknown, path);
}

function typed(v: unknown, path: string): unknown {
  const child = (k: string) => (path === '' ? k : `${path}.${k}`);
  if (Array.isArray(v)) return v.map((x) => typed(x, child(ITEMS)));
  if (isNode(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typed(x, child(k))]));
  if (typeof v === 'string' && v.startsWith(NUMBER_MARK)) {
    const text = v.slice(NUMBER_MARK.length);
    return takesOnlyStrings(path) ? text : Number(text);
  }
  return v;
}

/** Whether the schema takes only a string at `path` (not a number as well, and it says). */
export function takesOnlyStrings(path: string): boolean {
  const types = path === '' ? undefined : schemaTypesAt(path);
  return types?.has('string') === true && ![...types].some((t) => t === 'number' || t === 'integer');
}
