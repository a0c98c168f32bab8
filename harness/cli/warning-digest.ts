/**
 * Scenario warnings for commands that load many scenarios at once (suite, matrix). Most are
 * worth a line each, but the drain-cap warning is the same sentence for most of a nightly
 * suite (26 of 56 nightly scenarios cap their drain under, say, a Kafka consumer's 5-minute
 * max.poll.interval.ms): printed 22 times it teaches users to skip warnings. The first is
 * printed in full and the rest are counted; `convoy validate` still lists every one.
 */
const ALIKE = /shorter than the broker's redelivery horizon/;

export interface WarningDigest {
  /** Print this warning now, or count it as one more like the first. */
  warn(line: string): void;
  /** The count of those held back, as one line (null when none were). */
  summary(listCommand: string): string | null;
}

export function warningDigest(print: (line: string) => void): WarningDigest {
  let alike = 0;
  return {
    warn(line) {
      if (ALIKE.test(line) && alike++ > 0) return;
      print(line);
    },
    summary(listCommand) {
      if (alike <= 1) return null;
      const more = alike - 1;
      return `${more} more ${more === 1 ? 'scenario caps its' : 'scenarios cap their'} drain under the broker's redelivery horizon (\`${listCommand}\` lists them)`;
    },
  };
}
