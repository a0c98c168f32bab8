/** Types of units.js (plain JS, so that the pages run the very same code). */
export function formatDuration(us: number | null | undefined): string;
export function durationTicks(splits: number[], incrUs: number): string[];
export function decadeTicks(splits: number[]): string[];
