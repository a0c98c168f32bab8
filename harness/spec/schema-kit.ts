/**
 * The TypeBox vocabulary the scenario schema (schema.ts) is written in, and `Resolved<>`, the
 * type of a section after the loader (defaults.ts) has filled it in.
 *
 * The scenario file's type is TypeBox's `Static<>` of the schema. The resolved type differs in
 * two ways, both marked on the schema's type only (no runtime trace): a property with a
 * `default` (or one the loader fills, such as `name`) is present, and a duration is a number of
 * milliseconds. `Resolved<>` walks the schema's type and applies both.
 *
 * Each helper writes its keywords in the order of the published scenario.schema.json (TypeBox
 * appends `type`, `required` and `properties` after the options it is given, unless the options
 * name them first), so the published file is unchanged by being generated from TypeBox.
 */
import { Type } from '../typebox.ts';
import type { ArrayOptions, SchemaOptions, Static, TArray, TObject, TOptional, TProperties, TSchema, TUnion, TUnsafe } from '@sinclair/typebox';

declare const FILLED: unique symbol;
declare const DURATION: unique symbol;
declare const OPEN: unique symbol;

/** An optional property the loader always fills (its `default`, or e.g. the name from the file). */
export type TFilled<T extends TSchema> = TOptional<T> & { readonly [FILLED]: true };
/** A duration: milliseconds or a string with a unit in the file, milliseconds once resolved. */
export type TDuration = TUnsafe<number | string> & { readonly [DURATION]: true };
/** An object that keeps fields other modules own (a broker's settings, a fault kind's fields). */
export type TOpen<T extends TSchema> = T & { readonly [OPEN]: true };
/** JSON Schema `oneOf` (TypeBox's Union writes anyOf), typed as the union of its branches. */
export type TOneOf<T extends TSchema[]> = TUnsafe<Static<TUnion<T>>> & { oneOf: T };
/** An object of values of one shape under any names (`additionalProperties: <schema>`). */
export type TMap<V extends TSchema> = TUnsafe<Record<string, Static<V>>> & { additionalProperties: V };

/** Optional in the file, always present once resolved (the schema gives a `default`, or the loader fills it). */
export const filled = <T extends TSchema>(t: T) => Type.Optional(t) as TFilled<T>;
export const optional = <T extends TSchema>(t: T) => Type.Optional(t);
/** Type-level only: the object also carries fields its plug-ins own. */
export const withPluginFields = <T extends TSchema>(t: T) => t as TOpen<T>;

/** A closed object: `type`, then the options, then `required` and `properties`. */
export function object<P extends TProperties>(properties: P, options: SchemaOptions = {}): TObject<P> {
  return Type.Object(properties, { type: 'object', ...options });
}

/** An open object (`additionalProperties: true`, after its properties). */
export function openObject<P extends TProperties>(properties: P, options: SchemaOptions = {}): TOpen<TObject<P>> {
  return { ...Type.Object(properties, { type: 'object', ...options }), additionalProperties: true } as unknown as TOpen<TObject<P>>;
}

/** An array: `type`, the options before `items`, `items`, the options after. */
export function list<T extends TSchema>(items: T, before: ArrayOptions = {}, after: ArrayOptions = {}): TArray<T> {
  return Type.Array(items, { type: 'array', ...before, items, ...after });
}

/** `{ enum: values, ...options }`, typed as one of the values. */
export function values<const V extends readonly (string | number)[]>(enumValues: V, options: SchemaOptions = {}) {
  return Type.Unsafe<V[number]>({ enum: enumValues, ...options });
}

/** `{ const: value }` (TypeBox's Literal would add `type`). */
export function constant<const V extends string>(value: V) {
  return Type.Unsafe<V>({ const: value });
}

/** `{ ...options, oneOf: branches }`. */
export function oneOf<T extends TSchema[]>(branches: [...T], options: SchemaOptions = {}): TOneOf<T> {
  return Type.Unsafe({ ...options, oneOf: branches }) as TOneOf<T>;
}

/** `{ type: object, ...options, additionalProperties: value schema }`. */
export function map<V extends TSchema>(value: V, options: SchemaOptions = {}): TMap<V> {
  return Type.Unsafe({ type: 'object', ...options, additionalProperties: value }) as TMap<V>;
}

/** `{ $ref: '#/$defs/<name>', ...options }`, typed as the schema it refers to. */
export function ref<T extends TSchema>(name: string, _target: T, options: SchemaOptions = {}): T {
  return Type.Unsafe({ $ref: `#/$defs/${name}`, ...options }) as unknown as T;
}

/** A duration field (`{ $ref: '#/$defs/duration', ...options }`). */
export function durationRef(options: SchemaOptions = {}): TDuration {
  return Type.Unsafe({ $ref: '#/$defs/duration', ...options }) as TDuration;
}

type Evaluate<T> = { [K in keyof T]: T[K] } & {};

type FilledKeys<P extends TProperties> = { [K in keyof P]: P[K] extends TOptional<TSchema> ? (P[K] extends { readonly [FILLED]: true } ? K : never) : K }[keyof P];
type OptionalKeys<P extends TProperties> = Exclude<keyof P, FilledKeys<P>>;
type ResolvedProperties<P extends TProperties> = Evaluate<
  { [K in FilledKeys<P>]: Resolved<P[K]> } & { [K in OptionalKeys<P>]?: Resolved<P[K]> }
>;

/** The type of a value of schema S after the loader: defaults filled, durations in milliseconds. */
export type Resolved<S> = S extends { readonly [DURATION]: true }
  ? number
  : S extends { readonly [OPEN]: true } & TObject<infer P>
    ? ResolvedProperties<P> & { [field: string]: unknown }
    : S extends TObject<infer P>
      ? ResolvedProperties<P>
      : S extends TArray<infer I>
        ? Resolved<I>[]
        : S extends { oneOf: infer B extends TSchema[] }
          ? Resolved<B[number]>
          : S extends { additionalProperties: infer V extends TSchema }
            ? Record<string, Resolved<V>>
            : S extends TSchema
              ? Static<S>
              : never;
