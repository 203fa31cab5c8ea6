/** A URL fit for a report: user name and password removed, query values masked (they may carry tokens). */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, '***');
    return u.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}
