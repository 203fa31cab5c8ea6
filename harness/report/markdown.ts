/** A value made safe for one cell of a Markdown table: pipes escaped, line breaks folded. */
export function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
