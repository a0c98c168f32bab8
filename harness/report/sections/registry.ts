import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isModuleFile, moduleFile } from '../../module-ext.ts';
import type { ReportSection } from './contract.ts';

const DIR = fileURLToPath(new URL('./', import.meta.url));
const NOT_SECTIONS = new Set(['contract', 'registry'].map(moduleFile));

/** Every section of the run report, in page order: the modules of this folder (or `dir`) that default-export one. */
export async function reportSections(dir = DIR): Promise<ReportSection[]> {
  const sections: { file: string; section: ReportSection }[] = [];
  for (const file of readdirSync(dir).filter((f) => isModuleFile(f) && !NOT_SECTIONS.has(f)).sort()) {
    const section = ((await import(join(dir, file))) as { default?: ReportSection }).default;
    if (typeof section?.render !== 'function') continue; // a helper module of the sections
    if (!Number.isFinite(section.order)) throw new Error(`report section ${join(dir, file)} has no order`);
    sections.push({ file, section });
  }
  sections.sort((a, b) => a.section.order - b.section.order || a.file.localeCompare(b.file));
  const anchors = sections.flatMap((s) => (s.section.nav ? [s.section.nav.id] : []));
  const twice = anchors.find((id, i) => anchors.indexOf(id) !== i);
  if (twice) throw new Error(`two report sections have the anchor #${twice}`);
  return sections.map((s) => s.section);
}
