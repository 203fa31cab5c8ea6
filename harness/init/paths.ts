/**
 * Endpoint paths: a path exists when a signed empty request to it gets an envelope that differs from
 * the answer to a path that cannot exist (and is not HTTP 404 or an "unknown path" sentence).
 */
import { DOCUMENT_PATHS, ENDPOINT_CANDIDATES, NUMBERED_CANDIDATES, PATH_PREFIXES } from './candidates.js';
import type { Evidence } from './evidence.js';
import { describe, type Answer, type Prober } from './prober.js';

export type Found = Partial<Record<keyof typeof ENDPOINT_CANDIDATES | keyof typeof DOCUMENT_PATHS, string>>;

function shape(a: Answer, path: string): string {
  return JSON.stringify([a.http, a.envelope, a.code, a.key, (a.message ?? '').split(path).join('<path>')]);
}

/** A path with a placeholder for the resource's number (`/payouts/{payout_no}/cancel`): filled before it is probed. */
export const isTemplated = (path: string): boolean => /\{[a-z_]+\}/.test(path);

/**
 * Fills `found` as it goes, so a budget spent half-way keeps what was found. `told`: the paths the vendor gave
 * (--hint, --hints, --openapi), each tried first and written only when it answers as a path that exists; a templated
 * one is probed with a number no resource has (its answer is then the service's notFound, not an unknown path's).
 */
export async function discoverPaths(
  p: Prober,
  ev: Evidence,
  found: Found = {},
  told: Partial<Record<keyof Found, string>> = {},
  refuted: (name: keyof Found) => void = () => {},
): Promise<Found> {
  p.phase('endpoint paths');
  const nowhere = `/api/v1/init-no-such-path-${p.runId}`;
  const baseline = shape(await p.post(nowhere, {}), nowhere);
  const exists = async (path: string, templated = false): Promise<Answer | undefined> => {
    const a = await p.post(path, {});
    if (a.error || !a.envelope || a.http === 404) return undefined;
    // An empty body to a fixed path answered "not found" may be a route that took the path's last word for a number
    // (/payouts/{payout_no} reading "cancel" as a payout's number): then any other word there is answered alike, and
    // the path is no endpoint. A templated path filled with a number nothing has is answered so by design.
    if (!templated && /notfound/i.test(a.key ?? '')) {
      const other = path.replace(/[^/]+$/, `i${p.runId}none`);
      const b = await p.post(other, {});
      if (b.envelope && b.code === a.code && b.key === a.key) return undefined;
    }
    if (/unknown (path|endpoint|route)|no such (path|endpoint|route)|path not found/i.test(a.message ?? '')) return undefined;
    if (shape(a, path) === baseline) return undefined;
    return a;
  };
  for (const [name, path] of Object.entries(told) as [keyof Found, string][]) {
    const a = await exists(path.replace(/\{[a-z_]+\}/g, `i${p.runId}none`), isTemplated(path));
    if (a) {
      found[name] = path;
      ev.learnt(`endpoints.${name}`, path, `the vendor's path; an empty signed request got ${describe(a)}, unlike an unknown path`);
    } else {
      refuted(name);
      ev.todo(
        `endpoints.${name} (as told)`,
        `the vendor gives ${path}, but an empty signed request to it was answered like a path that does not exist, so it is ` +
          'not written (init searched the usual shapes instead): check the path with the vendor',
      );
    }
  }
  for (const [name, path] of Object.entries(DOCUMENT_PATHS) as [keyof typeof DOCUMENT_PATHS, string][]) {
    if (found[name] !== undefined) continue;
    const a = await exists(path);
    if (a) {
      found[name] = path;
      ev.learnt(`endpoints.${name}`, path, `the document's path; an empty signed request got ${describe(a)}, unlike an unknown path`);
    }
  }
  for (const [name, rests] of Object.entries(ENDPOINT_CANDIDATES) as [keyof typeof ENDPOINT_CANDIDATES, string[]][]) {
    if (found[name] !== undefined) continue;
    let tried = 0;
    search: for (const prefix of PATH_PREFIXES) {
      for (const rest of rests) {
        tried += 1;
        const path = prefix + rest;
        const a = await exists(path);
        if (a) {
          found[name] = path;
          ev.learnt(`endpoints.${name}`, path, `${tried} candidate path(s) tried; this one got ${describe(a)}, unlike an unknown path`);
          break search;
        }
      }
    }
    // Then the shapes carrying the merchant's own number (a creation only): filled with a number nothing has, a creation
    // route answers it as a request, an unknown path as such. Whether it is the endpoint is for a record to prove (served.ts).
    numbered: for (const prefix of PATH_PREFIXES) {
      if (found[name]) break;
      for (const rest of NUMBERED_CANDIDATES[name] ?? []) {
        tried += 1;
        const path = prefix + rest;
        const a = await exists(path.replace(/\{[a-z_]+\}/g, `i${p.runId}none`), true);
        if (a) {
          found[name] = path;
          ev.learnt(
            `endpoints.${name}`,
            path,
            `${tried} candidate path(s) tried; this one, carrying the merchant's number, got ${describe(a)}, unlike an unknown path`,
          );
          break numbered;
        }
      }
    }
    if (!found[name])
      ev.todo(
        `endpoints.${name}`,
        `the path of this endpoint (none of ${tried} usual shapes answered); write it, or leave it out if the target has none`,
      );
  }
  return found;
}
