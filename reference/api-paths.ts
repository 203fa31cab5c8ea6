/**
 * Where this target serves the endpoints whose paths the document leaves "not shown" ("Payment creation with card data
 * (...): the path is not shown.", "Refund creation endpoint (method, path, payload, response): not shown.", "Payout
 * creation, payout query and payout cancel endpoints (paths, payloads, responses): not shown."). A vendor may put the
 * number of the resource into the path (`/api/v1/payouts/{payout_no}/cancel`, `/api/v1/payments/{order_no}/refunds`):
 * a description's `apiPaths` gives each moved route its path, placeholders allowed; the number a request's path carries
 * is handed to the handler in the reference's own body field, as if the body had carried it. A moved route is served
 * there alone: not at its own path, nor at a reading's name for it.
 */

/** The reference's routes a target may serve elsewhere (reference/routes.ts). */
export const API_ROUTES = [
  '/api/v1/payments/card',
  '/api/v1/refunds/create',
  '/api/v1/refunds/query',
  '/api/v1/payouts/create',
  '/api/v1/payouts/query',
  '/api/v1/payouts/cancel',
] as const;
export type ApiRoute = (typeof API_ROUTES)[number];

/** Per route, each placeholder it may carry and the reference's body field the number stands for. */
const FIELDS: Readonly<Record<ApiRoute, Readonly<Record<string, string>>>> = {
  '/api/v1/payments/card': { merchant_order_no: 'merchant_order_no' },
  '/api/v1/refunds/create': {
    order_no: 'original_order_no',
    merchant_order_no: 'original_merchant_order_no',
    merchant_refund_no: 'merchant_refund_no',
  },
  '/api/v1/refunds/query': { refund_no: 'refund_no', merchant_refund_no: 'merchant_refund_no' },
  '/api/v1/payouts/create': { merchant_payout_no: 'merchant_payout_no' },
  '/api/v1/payouts/query': { payout_no: 'payout_no', merchant_payout_no: 'merchant_payout_no' },
  '/api/v1/payouts/cancel': { payout_no: 'payout_no', merchant_payout_no: 'merchant_payout_no' },
};

export interface ApiPaths {
  /**
   * The route a request path is served by, with the body fields its path carries; undefined for a moved route's own
   * path. `served` says whether a path is served as it is (a route, a reading's or a sandbox control's path): such a
   * path wins over a template it also fits (`/api/v1/payouts/create` is no payout numbered "create"). `routed`, the
   * route the path names before any template (a reading's name for a route, other-endpoint-paths' refunds/apply, names
   * that route): a moved route is served at its template alone, so a path naming it is not served.
   */
  resolve(path: string, served: (path: string) => boolean, routed?: string): { route: string; fields: Record<string, string> } | undefined;
}

interface Compiled {
  route: ApiRoute;
  re: RegExp;
  names: string[];
}

/** Refuses a description the reference cannot serve: a clear error, never a half-moved route table. */
export function resolveApiPaths(paths: Readonly<Partial<Record<string, string>>> = {}): ApiPaths {
  const compiled: Compiled[] = [];
  const moved = new Set<string>();
  for (const [route, path] of Object.entries(paths)) {
    if (!(API_ROUTES as readonly string[]).includes(route)) throw new Error(`target apiPaths: ${route} is not a route that may move`);
    if (typeof path !== 'string' || !path.startsWith('/')) throw new Error(`target apiPaths.${route}: a path starting with /`);
    const r = route as ApiRoute;
    const names: string[] = [];
    const parts = path.split(/\{([^{}]*)\}/);
    const source = parts
      .map((p, i) => {
        if (i % 2 === 0) return p.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
        if (FIELDS[r][p] === undefined) throw new Error(`target apiPaths.${route}: {${p}} is not a number this route is about`);
        names.push(p);
        return '([^/]+)';
      })
      .join('');
    compiled.push({ route: r, re: new RegExp(`^${source}$`), names });
    if (path !== route) moved.add(route);
  }
  return {
    resolve(path, served, routed = path) {
      if (moved.has(routed)) return undefined;
      if (served(path)) return { route: path, fields: {} };
      for (const c of compiled) {
        const m = c.re.exec(path);
        if (!m) continue;
        const fields: Record<string, string> = {};
        let readable = true;
        c.names.forEach((n, i) => {
          try {
            fields[FIELDS[c.route][n]!] = decodeURIComponent(m[i + 1]!);
          } catch {
            readable = false;
          }
        });
        if (readable) return { route: c.route, fields };
      }
      return { route: path, fields: {} };
    },
  };
}
