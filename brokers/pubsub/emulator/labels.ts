/** Subscription label: most outstanding messages per ordering key on convoy's emulator (0 or absent: flow control only). */
export const OUTSTANDING_PER_KEY_LABEL = 'convoy-outstanding-per-key';
