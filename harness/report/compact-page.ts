/**
 * The single-file page carries every data file of the report (test results, attachments, widgets) as a
 * Base64 string in one `d(name, base64)` call each: about 6 MB of a quick run's 9 MB. The same files,
 * gzipped into one blob that the page inflates itself (DecompressionStream) before it flags its data
 * ready, weigh a tenth of that; the reader sees the same page. The app's own script is left untouched.
 */
import { gunzipSync, gzipSync } from 'node:zlib';

const DATA_SCRIPT = new RegExp(
  String.raw`<script defer>\s*Promise\.allSettled\(\[([\s\S]*?)\]\)\s*` +
    String.raw`\.then\(function\(\)\{\s*window\.allureReportDataReady = true;\s*\}\)\s*<\/script>`,
);
const ENTRY = /d\("([^"\\]+)","([A-Za-z0-9+/=]*)"\)/g;
const MARK = 'mpsi-compact-data';

/** Inflates the blob and hands each file to the page as the Base64 string the generator would have given. */
const LOADER = `(async function () {
  var raw = atob(document.getElementById("${MARK}").textContent.trim());
  var zipped = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) zipped[i] = raw.charCodeAt(i);
  var buf = new Uint8Array(await new Response(new Blob([zipped]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
  var headLen = new DataView(buf.buffer).getUint32(0);
  var head = JSON.parse(new TextDecoder().decode(buf.subarray(4, 4 + headLen)));
  var at = 4 + headLen;
  for (var k = 0; k < head.names.length; k++) {
    var part = buf.subarray(at, at + head.sizes[k]);
    at += head.sizes[k];
    var s = "";
    for (var j = 0; j < part.length; j += 0x8000) s += String.fromCharCode.apply(null, part.subarray(j, j + 0x8000));
    window.allureReportData[head.names[k]] = btoa(s);
  }
  window.allureReportDataReady = true;
})();`;

/** The page with its data files in one gzipped blob; the page unchanged when its data script is not the expected one. */
export function compactPageData(html: string): string {
  const m = DATA_SCRIPT.exec(html);
  if (!m) return html;
  const names: string[] = [];
  const parts: Buffer[] = [];
  const rebuilt: string[] = [];
  for (const e of m[1]!.matchAll(ENTRY)) {
    names.push(e[1]!);
    parts.push(Buffer.from(e[2]!, 'base64'));
    rebuilt.push(e[0]);
  }
  // Anything in the list that is not a plain d(name, base64) call: leave the page as the generator made it.
  if (rebuilt.join(',') !== m[1]!.trim()) return html;
  const head = Buffer.from(JSON.stringify({ names, sizes: parts.map((p) => p.length) }));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(head.length);
  // zlib's default level: level 9 took half as long again for 2 % less (a quick run's 4 MB of data: 0.54 → 0.55 MB).
  const blob = gzipSync(Buffer.concat([len, head, ...parts]), { level: 6 }).toString('base64');
  const replacement = `<script type="application/octet-stream" id="${MARK}">${blob}</script>\n    <script>${LOADER}</script>`;
  return html.slice(0, m.index) + replacement + html.slice(m.index + m[0].length);
}

/**
 * The data files of a compacted page, name → bytes (for checks that read what the page carries); undefined when the page is not compacted.
 */
export function compactedPageData(html: string): Map<string, Buffer> | undefined {
  const m = new RegExp(`<script type="application/octet-stream" id="${MARK}">([A-Za-z0-9+/=]*)</script>`).exec(html);
  if (!m) return undefined;
  const buf = gunzipSync(Buffer.from(m[1]!, 'base64'));
  const headLen = buf.readUInt32BE(0);
  const head = JSON.parse(buf.subarray(4, 4 + headLen).toString('utf8')) as { names: string[]; sizes: number[] };
  const out = new Map<string, Buffer>();
  let at = 4 + headLen;
  head.names.forEach((n, i) => {
    out.set(n, buf.subarray(at, at + head.sizes[i]!));
    at += head.sizes[i]!;
  });
  return out;
}
