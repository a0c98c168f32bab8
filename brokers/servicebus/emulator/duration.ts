// ISO-8601 durations as used by Service Bus entity properties ("PT1M", "P14D", "PT0.5S").
// Only the day/time designators are accepted; years and months have no fixed length.

const PATTERN = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

/** Parses an ISO-8601 duration into milliseconds; throws on anything else. */
export function parseDuration(text: string): number {
  const m = PATTERN.exec(text.trim());
  if (!m || text.trim() === "P" || /T$/i.test(text.trim())) {
    throw new Error(`not an ISO-8601 duration: ${JSON.stringify(text)}`);
  }
  const [, d, h, min, s] = m;
  const ms =
    Number(d ?? 0) * 86_400_000 + Number(h ?? 0) * 3_600_000 + Number(min ?? 0) * 60_000 + Number(s ?? 0) * 1000;
  return Math.round(ms);
}

/** Formats milliseconds as an ISO-8601 duration ("PT1M30S"); Infinity maps to .NET's TimeSpan.MaxValue. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "P10675199DT2H48M5.4775807S";
  let rest = ms;
  const days = Math.floor(rest / 86_400_000);
  rest -= days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  let time = "";
  if (hours) time += `${hours}H`;
  if (minutes) time += `${minutes}M`;
  if (seconds) time += `${seconds}S`;
  if (!days && !time) return "PT0S";
  return `P${days ? `${days}D` : ""}${time ? `T${time}` : ""}`;
}
