/**
 * Profile templates: a string that is exactly "${name}" becomes the variable's value (any JSON
 * type); "${name}" inside a longer string is replaced by its text. An unknown variable is an
 * error naming it, so a profile typo fails loudly instead of sending "${typo}" to a target.
 */
const WHOLE = /^\$\{([A-Za-z][A-Za-z0-9]*)\}$/;
const PART = /\$\{([A-Za-z][A-Za-z0-9]*)\}/g;

export function fillTemplate(template: Record<string, unknown>, vars: Record<string, unknown>): Record<string, unknown> {
  return fill(template, vars, '') as Record<string, unknown>;
}

function fill(node: unknown, vars: Record<string, unknown>, where: string): unknown {
  if (typeof node === 'string') {
    const whole = WHOLE.exec(node);
    if (whole) return lookup(whole[1]!, vars, where);
    return node.replace(PART, (_, name: string) => String(lookup(name, vars, where)));
  }
  if (Array.isArray(node)) return node.map((v, i) => fill(v, vars, `${where}[${i}]`));
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      const value = fill(v, vars, where ? `${where}.${k}` : k);
      // An undefined variable value drops the field: lets a template field be optional per call.
      if (value !== undefined) out[k] = value;
    }
    return out;
  }
  return node;
}

function lookup(name: string, vars: Record<string, unknown>, where: string): unknown {
  if (!(name in vars))
    throw new Error(
      `template variable \${${name}} at ${where || 'top'} is not one this request provides (${Object.keys(vars).join(', ')})`,
    );
  return vars[name];
}
