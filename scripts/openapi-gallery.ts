/**
 * Writes the gallery's example descriptions (fixtures/openapi-gallery/<style>.yaml): the reference profile's target as
 * a vendor would describe it in each style (fixtures/openapi-gallery/vendor.ts). test/openapi/vendor.test.ts holds the
 * files to the generator.
 *
 *   npx tsx scripts/openapi-gallery.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { galleryFile, GALLERY_STYLES } from '../fixtures/openapi-gallery/vendor.js';
import type { Profile } from '../harness/profile/types.js';

const root = join(import.meta.dirname, '..');
const reference = JSON.parse(readFileSync(join(root, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Profile;
for (const style of GALLERY_STYLES) {
  const file = join(root, 'fixtures', 'openapi-gallery', `${style}.yaml`);
  writeFileSync(file, galleryFile(reference, style));
  process.stdout.write(`wrote ${file}\n`);
}
