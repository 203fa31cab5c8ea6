/**
 * What the vendor tells init, beside what the target answers: `--hint path=value` (repeatable), `--hints FILE` (a
 * partial profile) and `--openapi` (harness/openapi/read.ts). A probe cannot learn another merchant's id, a sandbox
 * control or a path no candidate spells; the vendor's documentation can. Each value told is a leaf with its source (the
 * flag, the file and the JSON pointer in it). Discovery tries what was told first (an endpoint path, a method name);
 * the draft then takes every leaf it did not learn otherwise; where it learnt another value, the vendor's is written when the
 * answers are consistent with it (told-judge.ts: a limit inside the probed bracket, a list the probes saw a part of), and
 * where they contradict it, the target's answer is kept and a TODO names the answer. Nothing told is ever called
 * verified unless a probe showed it, and a TODO about a told field is not printed unless the told value leaves it open.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../cli/args.js';
import { profilePropertyNames } from '../profile/schema.js';
import type { Evidence } from './evidence.js';
import { isAtOrUnder, parseTypedJson, profileSegments, takesOnlyStrings } from './told-schema.js';

/** One leaf the vendor gave: its dotted profile path, the value and where it was read. */
export interface Told {
  path: string;
  value: unknown;
  source: string;
}

type Obj = Record<string, unknown>;

const PATH_RE = /^[A-Za-z_$][\w$-]*(\.[\w$@:{}/-]+)*$/;

/** `a.b` → `/a/b` (RFC 6901 escapes), the pointer a hints file's leaf is named by. */
export function pointerOf(path: string): string {
  return `/${profileSegments(path)
    .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/')}`;
}

/** The leaves of a value: objects are walked, arrays and scalars are one leaf each. */
export function leavesOf(v: unknown, path: string[] = []): [string, unknown][] {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Obj);
    if (entries.length === 0 && path.length > 0) return [[path.join('.'), {}]];
    return entries.flatMap(([k, x]) => leavesOf(x, [...path, k]));
  }
  return path.length === 0 ? [] : [[path.join('.'), v]];
}

/** The value at a dotted profile path (a map's key with a dot in it read whole: see told-schema.ts). */
export function getAt(o: unknown, path: string): unknown {
  return getAtSegments(o, profileSegments(path));
}

function getAtSegments(o: unknown, keys: readonly string[]): unknown {
  return keys.reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Obj)[k] : undefined), o);
}

export function setAt(o: Obj, path: string, v: unknown): void {
  setAtSegments(o, profileSegments(path), v);
}

function setAtSegments(o: Obj, keys: readonly string[], v: unknown): void {
  let cur = o;
  for (const k of keys.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object' || Array.isArray(cur[k])) cur[k] = {};
    cur = cur[k] as Obj;
  }
  cur[keys[keys.length - 1]!] = structuredClone(v);
}

function checkTop(path: string, where: string): void {
  const top = path.split('.')[0]!;
  if (!(profilePropertyNames().get(top) ?? []).includes('top level'))
    throw new UsageError(`${where}: ${JSON.stringify(top)} is not a profile field (docs/PROFILE.md lists them)`);
}

/**
 * `endpoints.cardPayment=/v2/charges/card-present`: the value is JSON when it reads as JSON (an object, a list, a
 * number, true/false, a quoted string), else the text itself; typed by the profile's schema (told-schema.ts): where
 * the field is a string, `refunds.fee=0.30` is the text "0.30", not the number 0.3.
 */
export function parseHint(text: string): Told {
  const eq = text.indexOf('=');
  if (eq <= 0)
    throw new UsageError(`--hint must be PATH=VALUE (e.g. endpoints.cardPayment=/v2/charges), got ${JSON.stringify(text.slice(0, 80))}`);
  const path = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  if (!PATH_RE.test(path)) throw new UsageError(`--hint ${JSON.stringify(path.slice(0, 80))}: not a dotted profile path`);
  checkTop(path, `--hint ${path}`);
  let value: unknown = raw;
  if (/^\s*([{["]|-?\d|true\b|false\b|null\b)/.test(raw)) {
    try {
      value = parseTypedJson(raw, path);
    } catch {
      if (/^\s*[{["]/.test(raw)) throw new UsageError(`--hint ${path}: the value starts like JSON but does not parse`);
    }
  }
  // A field the schema takes as a string keeps the text written (a method named TRUE, a number of digits).
  if ((typeof value === 'boolean' || value === null) && takesOnlyStrings(path)) value = raw.trim();
  return { path, value, source: `--hint ${path}` };
}

/** A hints file: a JSON object in the profile's shape (any part of it), each leaf told with its pointer. */
export function readHintsFile(file: string): Told[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--hints ${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let json: unknown;
  try {
    json = parseTypedJson(text, '');
  } catch (err) {
    throw new UsageError(`--hints ${file}: not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new UsageError(`--hints ${file}: must be a JSON object (a partial profile)`);
  const out: Told[] = [];
  for (const [path, value] of leavesOf(json)) {
    if (path === '$schema' || path === 'profileVersion') continue;
    checkTop(path, `--hints ${file}`);
    out.push({ path, value, source: `${file}#${pointerOf(path)}` });
  }
  return out;
}

/** What the vendor told, as one lookup: later sources override earlier ones leaf by leaf (a --hint wins over the file). */
/** Besides the facts: names to try (an API description's enums), and what the description says against the interface. */
export interface VendorNotes {
  methods?: string[];
  payoutMethods?: string[];
  /** Reported as TODOs; the parts they are about are not told. */
  contradictions?: string[];
  /** Operations or fields the description's reader could not place. */
  doubts?: string[];
}

export class Vendor {
  readonly told: Told[];
  constructor(
    told: Told[] = [],
    readonly notes: VendorNotes = {},
  ) {
    const byPath = new Map<string, Told>();
    for (const t of told) {
      const leaves = leavesOf(t.value, profileSegments(t.path));
      for (const [sub, v] of leaves.length ? leaves : [[t.path, t.value] as const]) {
        // A later leaf replaces an earlier one at its path, and whatever an earlier one said below it.
        for (const k of [...byPath.keys()]) if (isAtOrUnder(k, sub) || isAtOrUnder(sub, k)) byPath.delete(k);
        byPath.set(sub, { path: sub, value: v, source: t.source });
      }
    }
    this.told = [...byPath.values()];
  }

  private readonly refutedPaths = new Set<string>();

  /** A probe answered against what was told at `path`: it is neither written nor counted as settling its TODO. */
  refute(path: string): void {
    this.refutedPaths.add(path);
  }

  /** The leaves no probe refuted. */
  standing(): Told[] {
    return this.told.filter((t) => ![...this.refutedPaths].some((r) => isAtOrUnder(t.path, r)));
  }

  /** The value told at `path` (a leaf, or the object of the leaves under it). */
  at(path: string): unknown {
    const exact = this.told.find((t) => t.path === path);
    if (exact) return exact.value;
    const under = this.told.filter((t) => isAtOrUnder(t.path, path));
    if (under.length === 0) return undefined;
    const depth = profileSegments(path).length;
    const o: Obj = {};
    for (const t of under) setAtSegments(o, profileSegments(t.path).slice(depth), t.value);
    return o;
  }

  sourceOf(path: string): string | undefined {
    return (this.told.find((t) => t.path === path) ?? this.told.find((t) => isAtOrUnder(t.path, path)))?.source;
  }

  /** Every method name the vendor's facts mention: tried before init's own candidates. */
  methodNames(): string[] {
    const names: string[] = [...(this.notes.methods ?? [])];
    const add = (v: unknown) => {
      if (typeof v === 'string' && /^[A-Za-z][\w-]*$/.test(v) && !names.includes(v)) names.push(v);
    };
    for (const t of this.told) {
      if (/^methods\.(checkout|pricePoint|card|notEnabled|noChannel)$/.test(t.path) || /^merchants\.\w+\.paymentMethods$/.test(t.path))
        for (const v of Array.isArray(t.value) ? t.value : [t.value]) add(v);
      const keyed = /^(limits\.payments|refunds\.support|refunds\.createdStatus|checkout\.extrasByMethod)\.([^.]+)/.exec(t.path);
      if (keyed) add(keyed[2]);
    }
    return names;
  }

  /**
   * Payout method names the vendor's facts mention: a method's entry, range or fee (shared or one merchant's own), or a
   * merchant's list. A price list that names a payout fee of a method names a payout method of the target.
   */
  payoutMethodNames(): string[] {
    const names: string[] = [...(this.notes.payoutMethods ?? [])];
    for (const t of this.told) {
      const keyed = /^(merchants\.\w+\.facts\.)?(payouts\.methods|limits\.payouts|fees\.payouts)\.([^.]+)/.exec(t.path)?.[3];
      const listed = /^merchants\.\w+\.payoutMethods$/.test(t.path) && Array.isArray(t.value) ? t.value.map(String) : [];
      // A fee for "*" (every method not named) names none.
      for (const n of [...(keyed ? [keyed] : []), ...listed]) if (/^[A-Za-z][\w-]*$/.test(n) && !names.includes(n)) names.push(n);
    }
    return names;
  }
}

/** A value as a TODO quotes it: JSON, a long list cut (the draft and the vendor's file hold it whole). */
function brief(v: unknown): string {
  const text = JSON.stringify(v);
  return text.length <= 160 ? text : `${text.slice(0, 150)}… (${Array.isArray(v) ? `${v.length} items` : `${text.length} characters`})`;
}

/** The todo's profile path without its note ("pricePoints (APPLE_PAY)" → "pricePoints"; internalFieldNames["a.b"] kept whole). */
function todoBase(path: string): string {
  return path.split(' ')[0]!;
}

/**
 * Whether the vendor's standing facts answer the TODO at `todoPath`. A TODO with a note ("pricePoints (GOOGLE_PAY)": a
 * method no probe could place) asks about one case the vendor's facts may not reach (its list names another method's
 * tiers): it stays.
 */
export function answersTodo(vendor: Vendor, todoPath: string): boolean {
  if (todoPath.includes(' ')) return false;
  const base = todoBase(todoPath);
  return vendor.standing().some((t) => isAtOrUnder(t.path, base) || isAtOrUnder(base, t.path));
}

/**
 * What the target's answers say of a value the vendor told at `path`, beside the one init drafted there (`drafted`,
 * undefined where it drafted none): consistent (the answers allow it: the told value is written, and counted learnt),
 * contradicted (the answer that does not allow it), or undefined where no answer bears on it.
 */
export type ToldJudge = (
  path: string,
  told: unknown,
  drafted: unknown,
) => { consistent: true; why: string; value?: unknown } | { consistent: false; answer: string } | undefined;

/**
 * Writes into the draft every leaf told, each as learnt from the vendor (not proved). Where the draft holds another
 * value, the told one wins when the target's answers are consistent with it (`judge`: a limit inside the bracket the
 * probes found, a list of which the probes saw a part); otherwise the draft keeps what the target answered and a TODO
 * names the answer that contradicts the vendor. A TODO whose field the vendor filled is settled. Returns the leaves
 * written as told, for the TODO file's "told, not probed" list.
 */
export function applyTold(draft: Obj, vendor: Vendor, ev: Evidence, judge: ToldJudge = () => undefined): Told[] {
  (vendor.notes.contradictions ?? []).forEach((c, i) => {
    ev.todo(`(description ${i + 1})`, `the API description contradicts the interface, so this part of it was not used: ${c}`);
  });
  (vendor.notes.doubts ?? []).forEach((d, i) => {
    ev.todo(`(description doubt ${i + 1})`, `the API description could not be read here: ${d}`);
  });
  ev.settle((todo) => answersTodo(vendor, todo.path));
  const standing = vendor.standing();
  const written: Told[] = [];
  const contradicted = (t: Told, shown: unknown, answer: string) =>
    ev.todo(
      t.path,
      `the vendor says ${brief(t.value)} (${t.source}), but ${answer}: ` +
        `${shown === undefined ? 'init did not write it' : `init wrote what the target answered, ${brief(shown)}`}; ` +
        'check which is meant',
    );
  for (const t of standing) {
    const has = getAt(draft, t.path);
    if (has === undefined) {
      // A leaf under a part init wrote as a whole (a list, a string) is not merged into it.
      const parent = profileSegments(t.path).slice(0, -1);
      const blocked = parent.some((_, i) => {
        const v = getAtSegments(draft, parent.slice(0, i + 1));
        return v !== undefined && (typeof v !== 'object' || Array.isArray(v));
      });
      if (blocked) continue;
      const j = judge(t.path, t.value, undefined);
      if (j && !j.consistent) {
        contradicted(t, undefined, j.answer);
        continue;
      }
      setAt(draft, t.path, t.value);
      written.push(t);
    } else if (JSON.stringify(has) !== JSON.stringify(t.value)) {
      const j = judge(t.path, t.value, has);
      if (j?.consistent) {
        const value = 'value' in j ? j.value : t.value;
        setAt(draft, t.path, value);
        ev.relearn(t.path, value, `the vendor's value (${t.source}); ${j.why}`);
        continue;
      }
      const learnt = ev.values.find((v) => v.path === t.path)?.evidence;
      contradicted(t, has, j?.answer ?? `the target's answers showed ${brief(has)}${learnt ? ` (${learnt})` : ''}`);
    }
  }
  for (const w of written) ev.toldOnly(w);
  keysOfToldMerchants(draft, ev);
  // A fact only a version-5 profile can say (the sandbox's failure triggers) makes the draft one.
  if (
    written.some((w) => w.path.startsWith('sandbox.triggers')) &&
    typeof draft['profileVersion'] === 'number' &&
    draft['profileVersion'] < 5
  )
    draft['profileVersion'] = 5;
  ev.printHeld();
  return written;
}

/**
 * A merchant the vendor named without its key (an API description never carries one): the draft names an environment
 * variable for the key and a TODO asks the user to set it, so the draft stays a valid profile.
 */
function keysOfToldMerchants(draft: Obj, ev: Evidence): void {
  const merchants = (draft['merchants'] ?? {}) as Obj;
  for (const [role, m] of Object.entries(merchants)) {
    if (!m || typeof m !== 'object' || Array.isArray(m)) continue;
    const merchant = m as Obj;
    if (merchant['secret'] !== undefined || merchant['secretEnv'] !== undefined) continue;
    if (role !== 'primary' && merchant['productionSecret'] === undefined && merchant['productionSecretEnv'] === undefined)
      ev.todo(
        `merchants.${role}.productionSecretEnv`,
        `only if the checks should show the sandbox refuses merchant ${String(merchant['id'] ?? role)}'s production key ` +
          '(auth.env-keys): the variable holding that key; never the key itself in the file',
      );
    const name = `MPSI_${role.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}_SECRET`;
    merchant['secretEnv'] = name;
    ev.todo(
      `merchants.${role}.secretEnv`,
      `the secret key of merchant ${String(merchant['id'] ?? role)}: set the environment variable ${name} to it, or name ` +
        "another variable here (the vendor's documentation named the merchant, not its key)",
    );
  }
}
