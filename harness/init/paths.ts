/**
 * Endpoint paths: a path exists when a signed empty request to it gets an envelope that differs from
 * the answer to a path that cannot exist (and is not HTTP 404 or an "unknown path" sentence).
 */
import { DOCUMENT_PATHS, ENDPOINT_CANDIDATES, PATH_PREFIXES } from './candidates.js';
import type { Evidence } from './evidence.js';
import { describe, type Answer, type Prober } from './prober.js';

export type Found = Partial<Record<keyof typeof ENDPOINT_CANDIDATES | keyof typeof DOCUMENT_PATHS, string>>;

function shape(a: Answer, path: string): string {
  return JSON.stringify([a.http, a.envelope, a.code, a.key, (a.message ?? '').split(path).join('<path>')]);
}

/** Fills `found` as it goes, so a budget spent half-way keeps what was found. */
export async function discoverPaths(p: Prober, ev: Evidence, found: Found = {}): Promise<Found> {
  p.phase('endpoint paths');
  const nowhere = `/api/v1/init-no-such-path-${p.runId}`;
  const baseline = shape(await p.post(nowhere, {}), nowhere);
  const exists = async (path: string): Promise<Answer | undefined> => {
    const a = await p.post(path, {});
    if (a.error || !a.envelope || a.http === 404) return undefined;
    if (/unknown (path|endpoint|route)|no such (path|endpoint|route)|path not found/i.test(a.message ?? '')) return undefined;
    if (shape(a, path) === baseline) return undefined;
    return a;
  };
  for (const [name, path] of Object.entries(DOCUMENT_PATHS) as [keyof typeof DOCUMENT_PATHS, string][]) {
    const a = await exists(path);
    if (a) {
      found[name] = path;
      ev.learnt(`endpoints.${name}`, path, `the document's path; an empty signed request got ${describe(a)}, unlike an unknown path`);
    }
  }
  for (const [name, rests] of Object.entries(ENDPOINT_CANDIDATES) as [keyof typeof ENDPOINT_CANDIDATES, string[]][]) {
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
    if (!found[name])
      ev.todo(
        `endpoints.${name}`,
        `the path of this endpoint (none of ${tried} usual shapes answered); write it, or leave it out if the target has none`,
      );
  }
  return found;
}
