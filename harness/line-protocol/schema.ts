/**
 * The published JSON Schema of a line protocol: a line is one of the messages of either
 * direction, each message under its type's name in `$defs`, each direction a `oneOf` of them.
 */
import type { TObject } from '@sinclair/typebox';
import { schemaId } from '../schema-id.ts';

export function lineProtocolSchema(o: {
  /** The shape's name in its `$id` (client-protocol, worker-protocol). */
  shape: string;
  version: number;
  title: string;
  description: string;
  /** Each direction's name (fromClient, toWorker, ...) and its messages. */
  directions: Record<string, readonly TObject[]>;
}): object {
  const name = (m: TObject) => (m.properties.type as unknown as { const: string }).const;
  const directions = Object.entries(o.directions);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: schemaId(o.shape, o.version),
    title: o.title,
    description: o.description,
    oneOf: directions.map(([d]) => ({ $ref: `#/$defs/${d}` })),
    $defs: {
      ...Object.fromEntries(directions.map(([d, ms]) => [d, { oneOf: ms.map((m) => ({ $ref: `#/$defs/${name(m)}` })) }])),
      ...Object.fromEntries(directions.flatMap(([, ms]) => ms.map((m) => [name(m), m]))),
    },
  };
}
