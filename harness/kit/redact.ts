/**
 * Secrets must never reach a report, attachment, log or error message. Every text the harness
 * writes goes through a redactor built from the run's secrets.
 */
export type Redactor = (text: string) => string;

export function makeRedactor(secrets: Iterable<string>): Redactor {
  const list = [...new Set([...secrets].filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text;
    for (const s of list) out = out.split(s).join('***');
    return out;
  };
}
