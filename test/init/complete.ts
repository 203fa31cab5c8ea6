/**
 * Completes a draft ONLY at its TODOs, from a configuration's truth (the profile that transcribes the
 * reference's README for it): what a user does with the .todo.md file and the vendor's documentation.
 */
import type { Todo } from '../../harness/init/evidence.js';
import type { Profile } from '../../harness/profile/types.js';

type Obj = Record<string, unknown>;

function get(o: unknown, path: string[]): unknown {
  return path.reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Obj)[k] : undefined), o);
}

function set(o: Obj, path: string[], v: unknown): void {
  let cur = o;
  for (const k of path.slice(0, -1)) {
    if (!cur[k] || typeof cur[k] !== 'object') cur[k] = {};
    cur = cur[k] as Obj;
  }
  cur[path[path.length - 1]!] = structuredClone(v);
}

/** The draft with each TODO filled from `truth`; `filled` lists the profile paths written. */
export function completeAtTodos(draft: Profile, todos: Todo[], truth: Profile): { profile: Profile; filled: string[] } {
  const out = structuredClone(draft) as unknown as Obj;
  const filled: string[] = [];
  const copy = (path: string[]) => {
    const v = get(truth, path);
    if (v === undefined) return;
    set(out, path, v);
    filled.push(path.join('.'));
  };
  for (const t of todos) {
    const path = t.path.split(' ')[0]!.split('.');
    if (t.path === 'cardPayment.cards' || t.path === 'refunds.support') {
      // Merge: keep what init learnt (the success card, the card method's support), add the rest.
      for (const [k, v] of Object.entries((get(truth, path) as Obj | undefined) ?? {})) {
        if (get(out, [...path, k]) === undefined) {
          set(out, [...path, k], v);
          filled.push([...path, k].join('.'));
        }
      }
      continue;
    }
    // Methods the target names as none of init's names: each added to the list, with what the TODO asks of it.
    if (t.path === 'methods.checkout (other names)') {
      const listed = (get(out, ['methods', 'checkout']) as string[] | undefined) ?? [];
      for (const m of truth.methods.checkout.filter((x) => !listed.includes(x))) {
        listed.push(m);
        for (const at of [
          ['limits', 'payments'],
          ['checkout', 'extrasByMethod'],
          ['refunds', 'support'],
          ['refunds', 'createdStatus'],
        ])
          if (get(out, [...at, m]) === undefined) copy([...at, m]);
      }
      set(out, ['methods', 'checkout'], listed);
      continue;
    }
    // The key of a merchant init named from the vendor's documentation: the truth's own key, however it is given.
    if (/^merchants\.\w+\.secretEnv$/.test(t.path)) {
      const m = get(out, path.slice(0, 2)) as Obj | undefined;
      const truthM = (get(truth, path.slice(0, 2)) ?? {}) as Obj;
      if (!m) {
        copy(path.slice(0, 2));
        continue;
      }
      delete m['secretEnv'];
      for (const k of ['secret', 'secretEnv'] as const) if (truthM[k] !== undefined) m[k] = truthM[k];
      filled.push(t.path);
      continue;
    }
    if (/^merchants\.\w+\.productionSecretEnv$/.test(t.path)) {
      copy([...path.slice(0, 2), 'productionSecret']);
      continue;
    }
    copy(path);
    // A method's channels and its min/max go together (the loader refuses channels whose extremes are not min and max):
    // a user who writes the vendor's channel table writes its extremes too.
    if (path.at(-1) === 'channels' && get(truth, path) !== undefined) {
      copy([...path.slice(0, -1), 'min']);
      copy([...path.slice(0, -1), 'max']);
    }
  }
  // A user who writes a fact of a newer format sets the version the loader asks for (the truth's).
  if (filled.length > 0 && (truth.profileVersion ?? 1) > ((out['profileVersion'] as number | undefined) ?? 1))
    out['profileVersion'] = truth.profileVersion;
  return { profile: out as unknown as Profile, filled };
}
