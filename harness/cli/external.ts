/**
 * A repeatable option's values, one per flag (`--external a=1 --external b=2`): a variadic
 * option would take the scenario file after it as one more value.
 */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const EXTERNAL_HELP = 'external runtime: one connection setting per flag (repeat it), e.g. --external bootstrapServers=host:9092 --external sasl.mechanism=plain; secrets by reference: --external \'sasl.password=${env:KAFKA_PASSWORD}\' (or ${file:/path}); see docs/external.md';

export const CONNECTION_HELP = 'external runtime: a connection file (kind: plus the --external settings) or a name in ~/.config/convoy/connections.yaml; --external wins over it, it wins over CONVOY_EXTERNAL_<KEY> variables; see docs/external.md';
