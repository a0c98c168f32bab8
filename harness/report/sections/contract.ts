import type { KeyDetailSection } from '../key-detail.ts';
import type { ReportResult } from '../view.ts';

/** What a section of the run report is drawn from. */
export interface SectionInput {
  result: ReportResult;
  /** The worst keys' per-key detail, read from the run's history when there is one. */
  keys: KeyDetailSection;
}

/**
 * One section of the run report: a module of this folder that default-exports it. The page
 * shows the sections by `order`, and the navigation lists those with a `nav` that rendered
 * something, in the same order.
 */
export interface ReportSection {
  order: number;
  /** The section's anchor (its element's id) and its label in the navigation. */
  nav?: { id: string; label: string };
  /** Its HTML; '' leaves it out of the page and of the navigation. */
  render(input: SectionInput): string;
}
