/**
 * `Accept-Language: en` (or en-US, any case) switches `msg` to a plain English sentence. Only the
 * first language of the list counts, quality values aside: a client listing "fr, en" prefers French.
 */
export function wantsPlainEnglish(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return false;
  const first = (value.split(',')[0] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return first === 'en' || first.startsWith('en-');
}
