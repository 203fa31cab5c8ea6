/**
 * How a merchant's own facts (`merchants.<role>.facts`, profile version 5) are laid over the profile's shared ones: one
 * rule for every section, so that any method-level fact can differ per merchant without a field per case. Objects merge
 * key by key; lists and scalars replace; `null` removes the key for that merchant. Pure.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `over` laid over `base`; neither is changed. `null` in `over` removes the key; an object merges; anything else replaces. */
export function overlay<T>(base: T, over: unknown): T {
  if (over === undefined) return base;
  if (!isObj(over) || !isObj(base)) return (over === null ? undefined : over) as T;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    if (v === null) delete out[k];
    else out[k] = isObj(v) ? overlay(isObj(out[k]) ? out[k] : {}, v) : v;
  }
  return out as T;
}
