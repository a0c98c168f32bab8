/** The ordering checker's public surface (the anomaly types: docs/anomalies.md). */
export { Checker, HistoryLineError, checkEvents, checkText } from './checker.ts';
export type { CheckOutcome, CheckerOptions, FinishOptions } from './checker.ts';
export { checkFile, feedFile } from './readFile.ts';
export { DEFAULT_SETTLE_MS, faultWindows, inFault, faultStart, faultUntil } from './faults.ts';
export { Occurrences } from './occurrences.ts';
export type { Occurrence } from './occurrences.ts';
export {
  DEFAULT_EXPECTED_ZERO,
  defaultExpectations,
  evaluateExpectations,
  parseExpectSpec,
  parseExpectations,
  withDefaults,
} from './expectations.ts';
export type { Expectation, ExpectationResult, Expected, Relation, Verdict, VerdictStatus, WindowScope } from './expectations.ts';
export { RESULT_SCHEMA, buildResult, checkSection, convoyVersion, redactSecrets, redactString, REDACTED } from './result.ts';
export type { CheckSection, ConvoyResult, ResultInput, RunIdentity, Versions } from './result.ts';
export { ANOMALY_TYPES, isAnomalyType } from './types.ts';
export type { Anomalies, AnomalyEntry, AnomalyType, AckStatus, BadLine, EventRef, Example, FaultWindow, InputStats, WindowInput } from './types.ts';
