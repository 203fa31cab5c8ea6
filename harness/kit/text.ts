/**
 * Text at the edge. A finding or an outcome of ours carries its headline as data (`Finding.title`); only a
 * foreign text — an exception from node, vitest, ajv or vite, a message a test runner hands back — is cut
 * here, to the first line that a one-line report has room for.
 */

/** The first line of an error's message (or of a text), for a one-line report; never throws on odd values. */
export function firstLine(errorOrText: unknown): string {
  const text =
    errorOrText instanceof Error
      ? errorOrText.message
      : typeof errorOrText === 'object' && errorOrText !== null && typeof (errorOrText as { message?: unknown }).message === 'string'
        ? (errorOrText as { message: string }).message
        : String(errorOrText);
  const end = text.indexOf('\n');
  return end < 0 ? text : text.slice(0, end);
}
