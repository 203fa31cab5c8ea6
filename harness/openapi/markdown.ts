/**
 * The Markdown of a description's `description` fields, as vendors write their money terms and test data there: tables
 * (limits per method and channel, fees, price points, test accounts, test cards) and list items, each under the heading
 * it follows. Read by marked's lexer (GitHub-flavoured tables); nothing here parses Markdown itself.
 */
import { lexer, type Token, type Tokens } from 'marked';

export interface MdTable {
  /** The nearest heading above the table ("" when none). */
  heading: string;
  header: string[];
  rows: string[][];
}

export interface MdText {
  tables: MdTable[];
  /** List items' texts, with the heading above each. */
  items: { heading: string; text: string }[];
  /** Paragraphs' texts. */
  paragraphs: string[];
}

/** Tables, list items and paragraphs of a Markdown text. */
export function readMarkdown(md: string): MdText {
  const out: MdText = { tables: [], items: [], paragraphs: [] };
  let heading = '';
  const visit = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === 'heading') heading = (t as Tokens.Heading).text;
      else if (t.type === 'table') {
        const table = t as Tokens.Table;
        out.tables.push({
          heading,
          header: table.header.map((c) => c.text.trim()),
          rows: table.rows.map((r) => r.map((c) => c.text.trim())),
        });
      } else if (t.type === 'list') for (const item of (t as Tokens.List).items) out.items.push({ heading, text: item.text.trim() });
      else if (t.type === 'paragraph') out.paragraphs.push((t as Tokens.Paragraph).text);
    }
  };
  visit(lexer(md));
  return out;
}

/** A cell's text without code spans' backticks and bold marks (an underscore belongs to names such as APPLE_PAY). */
export function plain(cell: string): string {
  return cell.replace(/[`*]/g, '').trim();
}

/** The code spans of a text (`ACH_DEBIT`, `4242…`), in order. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/** The column whose header matches, or -1. */
export function column(t: MdTable, re: RegExp): number {
  return t.header.findIndex((h) => re.test(plain(h)));
}

/** An empty cell: blank or a dash. */
export const blank = (cell: string | undefined): boolean => cell === undefined || /^\s*(—|–|-|n\/a)?\s*$/i.test(plain(cell));
