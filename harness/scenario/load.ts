/**
 * Loads a scenario: the file and what it extends (extends.ts, YAML with positions) → the schema
 * (validate.ts, worded by wording.ts) → defaults (defaults.ts) → checks across fields
 * (cross-checks.ts) → the broker's own settings and capabilities, the faults against them
 * (static-check.ts) → the suite's rules on time (suite-rules.ts) → the resolved Scenario.
 * Everything it checks against comes in a ScenarioCatalogue from the caller. Every problem is
 * `file:line:col: <path>: expected ..., got ...`, all of them at once, in a ScenarioError (exit 2).
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../errors.ts';
import type { BrokerSettings, ExternalSetting } from '../broker/contract.ts';
import { runtimeRefused } from '../broker/module.ts';
import type { BrokerSchemaModule, ScenarioCatalogue } from './catalogue.ts';
import { resolveExtends, type SourceFile } from './extends.ts';
import { locate, type Origin } from './yaml-source.ts';
import { brokerProblems, faultFieldProblems, scenarioProblems } from './validate.ts';
import { defaultName, fillDefaults, resolveExpectations } from './defaults.ts';
import { consumerNameProblems, crossChecks, producerSettingsProblems } from './cross-checks.ts';
import { faultProblems, faultWarnings, type Target } from './static-check.ts';
import { resendProblems } from './resend-check.ts';
import { gatewayBrokerProblems, gatewayProblems } from './gateway-checks.ts';
import { resolveServiceCwd, serviceProblems } from './service-checks.ts';
import { durationWarnings, windowsInsideRun, plainlySeconds, runEndMs } from './suite-rules.ts';
import { scenarioSchema } from './schema.ts';
import type { Scenario } from '../spec/types.ts';
import { dedupe, isObject, show, type SchemaObject } from './values.ts';

export interface LoadOptions {
  /** Brokers, fault kinds, strategies, modes and the order service's modes to check against (harness/cli/catalogue.ts). */
  catalogue: ScenarioCatalogue;
  /** File name for messages and the default scenario name. */
  file?: string;
  /** Where the scenario will run (default: local, nothing destructive allowed on external). */
  target?: Partial<Target>;
}

export interface LoadResult {
  scenario: Scenario;
  /** Each as `<path>: ...` (or a sentence naming no path). */
  warnings: string[];
  /** The same, with the file:line:col of the value each names in front (as problems have it). */
  locatedWarnings: string[];
  /** The files the scenario came from: the file itself first, then what it extends. */
  files: SourceFile[];
}

/** An invalid scenario: the message names the file, `detail` has one located line per problem. */
export class ScenarioError extends InputError {
  constructor(
    readonly file: string,
    /** The problems as `<path>: ...` lines, without their position. */
    readonly errors: string[],
    origin?: Origin,
  ) {
    super(`${file}: invalid scenario (${errors.length} ${errors.length === 1 ? 'problem' : 'problems'})`, errors.map((e) => locate(origin, e)));
    this.name = 'ScenarioError';
  }
}

/** Reads, checks and resolves a scenario file; warnings go to `onWarning` (default stderr). */
export async function loadScenarioFile(file: string, options: Omit<LoadOptions, 'file'> & { onWarning?: (line: string) => void }): Promise<Scenario> {
  const { warnings, locatedWarnings, scenario } = await loadScenario(file, options);
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`convoy: warning: ${line}\n`));
  locatedWarnings.forEach((w, i) => warn(w === warnings[i] ? `${file}: ${w}` : w));
  return scenario;
}

export async function loadScenario(file: string, options: Omit<LoadOptions, 'file'>): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${(err as Error).message}`);
  }
  return parseScenario(text, { ...options, file });
}

/** Checks and resolves scenario YAML text (`extends:` relative to options.file's folder). */
export async function parseScenario(text: string, options: LoadOptions): Promise<LoadResult> {
  const file = options.file ?? '<scenario>';
  const { catalogue } = options;
  const source = await resolveExtends(text, file);
  const raw = source.data as Record<string, any>;
  const fail = (problems: string[]) => new ScenarioError(file, dedupe(problems), source.origin);
  const errors: string[] = scenarioProblems(raw, catalogue);
  const warnings: string[] = [];

  // The broker section, against the module's own schema.
  let brokerModule: BrokerSchemaModule | undefined;
  if (isObject(raw.broker) && typeof raw.broker.kind === 'string' && raw.broker.kind !== '') {
    const kind = raw.broker.kind as string;
    const names = catalogue.brokers.names();
    if (!names.includes(kind)) {
      errors.push(`broker.kind: expected one of ${names.length ? names.join(', ') : '(no brokers installed)'}; got ${show(kind)}`);
    } else {
      try {
        brokerModule = await catalogue.brokers.load(kind);
        if (brokerModule) errors.push(...brokerProblems(brokerModule.settingsSchema, kind, raw.broker));
        else warnings.push(`broker section not checked: no module for broker "${kind}"`);
        // Before any run folder is made: `convoy run` would otherwise fail at deploy (exit 3).
        const runtime = options.target?.runtime ?? 'local';
        if (brokerModule?.runtimes && !brokerModule.runtimes.includes(runtime)) errors.push(`broker.kind: ${runtimeRefused(kind, brokerModule.runtimes, runtime)}`);
        if (runtime === 'local') warnings.push(...ignoredConnectionFields(kind, raw.broker, brokerModule?.externalSettings));
      } catch (err) {
        errors.push(err instanceof InputError ? err.message : `broker.kind: cannot load broker "${kind}": ${(err as Error).message}`);
      }
    }
  }

  // Each fault against its kind's schema.
  const kinds = catalogue.faults;
  if (Array.isArray(raw.faults)) {
    if (kinds.size === 0 && raw.faults.length > 0) warnings.push('fault kinds not checked: no fault kinds are registered');
    raw.faults.forEach((f: unknown, i: number) => {
      if (!isObject(f) || typeof f.kind !== 'string' || kinds.size === 0) return;
      const kind = kinds.get(f.kind);
      if (!kind) errors.push(`faults[${i}].kind: expected one of ${[...kinds.keys()].sort().join(', ')}; got ${show(f.kind)}`);
      else errors.push(...faultFieldProblems(f.kind, kind.schema, f, `faults[${i}]`));
    });
  }
  if (errors.length) throw fail(errors);

  // Defaults, durations, then checks across fields.
  const resolved = fillDefaults(scenarioSchema, structuredClone(raw), scenarioSchema as unknown as SchemaObject) as Record<string, any>;
  resolved.name ??= defaultName(options.file);
  resolved.faults = (resolved.faults as Record<string, unknown>[]).map((f) => {
    const s = kinds.get(f.kind as string)?.schema;
    return s ? fillDefaults(s, f, s) : f;
  });
  resolved.expect = resolveExpectations(resolved.expect ?? {});
  const scenario = resolved as Scenario;
  errors.push(...crossChecks(scenario, raw, warnings, catalogue.strategies), ...gatewayProblems(scenario, raw, catalogue.gatewayModes), ...serviceProblems(scenario, raw, brokerModule, kinds));
  resolveServiceCwd(scenario, source.origin);
  if (errors.length) throw fail(errors);

  // The broker's own defaults; a producer's overrides must make valid settings too.
  if (brokerModule?.resolveSettings) {
    try {
      scenario.broker = brokerModule.resolveSettings(scenario.broker);
    } catch (err) {
      throw fail(err instanceof InputError && err.detail.length ? err.detail : [`broker: ${(err as Error).message}`]);
    }
    const problems = [
      ...producerSettingsProblems(scenario, brokerModule.resolveSettings.bind(brokerModule)),
      ...consumerNameProblems(scenario, brokerModule.consumerNames?.(scenario.broker) ?? []),
    ];
    if (problems.length) throw fail(problems);
  }
  // Faults against what the broker can do here and what the scenario has.
  const target: Target = { runtime: options.target?.runtime ?? 'local', allowDestructive: options.target?.allowDestructive ?? false };
  const capabilities = brokerModule?.capabilities?.(scenario.broker, target.runtime);
  const faultErrors = [...faultProblems(scenario, target, capabilities, kinds, catalogue.gatewayModes), ...resendProblems(scenario, raw, capabilities), ...gatewayBrokerProblems(scenario, capabilities, catalogue.gatewayModes)];
  if (faultErrors.length) throw fail(faultErrors);
  // The suite's rules on time.
  const horizonMs = brokerModule?.resolveSettings && brokerModule.redeliveryHorizonMs ? brokerModule.redeliveryHorizonMs(scenario.broker as BrokerSettings) : 0;
  const horizonSetting = brokerModule?.redeliveryHorizonSetting?.(scenario.broker as BrokerSettings);
  warnings.push(...durationWarnings(scenario, raw, horizonMs, horizonSetting));
  warnings.push(...faultWarnings(scenario, target, capabilities, kinds, catalogue.gatewayModes, runEndMs(scenario, horizonMs)));
  const late = [...plainlySeconds(scenario, raw), ...windowsInsideRun(scenario, horizonMs)];
  if (late.length) throw fail(late);
  return { scenario: orderScenario(scenario), warnings, locatedWarnings: warnings.map((w) => locate(source.origin, w)), files: source.files };
}

/** The scenario's connection fields (broker.url, broker.connectionString, ...): the local runtime starts its own broker and reads none of them. */
function ignoredConnectionFields(kind: string, broker: Record<string, unknown>, settings: readonly ExternalSetting[] = []): string[] {
  return settings
    .filter((s) => s.scenarioField && broker[s.key] !== undefined)
    .map((s) => `broker.${s.key}: ignored on the local runtime (convoy starts its own ${kind}); it is read with --runtime external`);
}

/** The resolved scenario with its sections in the schema's order (stable results; `extends` is gone by now). */
function orderScenario(s: Scenario): Scenario {
  return {
    name: s.name,
    description: s.description,
    seed: s.seed,
    broker: s.broker,
    workload: s.workload,
    consumers: s.consumers,
    faults: s.faults,
    expect: s.expect,
    run: s.run,
  };
}
