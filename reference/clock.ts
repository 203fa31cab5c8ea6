/**
 * Time formats. Times are written with an explicit "+00:00" offset rather than "Z" so a client
 * that (wrongly) looks only for a numeric offset is still served by the sandbox.
 */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

export function unixSeconds(ms: number = Date.now()): number {
  return Math.floor(ms / 1000);
}
