/**
 * What an alert may bring into a run's inputs and state. Alert senders choose their labels and
 * annotations freely (tens of kilobytes are possible); the run state lives in a comment with a
 * size limit, so only a bounded part goes in, and what was left out is said.
 */
export const ALERT_CAPS = {
  /** Labels and annotations kept, each. */
  entries: 64,
  keyLength: 128,
  valueLength: 1024,
  /** All keys and values together, labels and annotations each. */
  totalLength: 16 * 1024,
} as const;

export interface CappedAlertData {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** What was left out or shortened, in words; absent when nothing was. */
  cut?: string;
}

function capMap(map: Record<string, string>): {
  kept: Record<string, string>;
  dropped: number;
  shortened: number;
} {
  const kept: Record<string, string> = {};
  let dropped = 0;
  let shortened = 0;
  let total = 0;
  // Sorted, so the same alert always keeps the same part.
  for (const key of Object.keys(map).sort()) {
    const value = map[key] ?? "";
    if (
      Object.keys(kept).length >= ALERT_CAPS.entries ||
      key.length > ALERT_CAPS.keyLength ||
      total + key.length >= ALERT_CAPS.totalLength
    ) {
      dropped++;
      continue;
    }
    let v = value;
    const room = Math.min(ALERT_CAPS.valueLength, ALERT_CAPS.totalLength - total - key.length);
    if (v.length > room) {
      v = `${v.slice(0, Math.max(0, room - 1))}…`;
      shortened++;
    }
    kept[key] = v;
    total += key.length + v.length;
  }
  return { kept, dropped, shortened };
}

export function capAlertData(
  labels: Record<string, string>,
  annotations: Record<string, string>,
): CappedAlertData {
  const l = capMap(labels);
  const a = capMap(annotations);
  const out: CappedAlertData = { labels: l.kept, annotations: a.kept };
  const parts: string[] = [];
  if (l.dropped) parts.push(`${l.dropped} labels left out`);
  if (a.dropped) parts.push(`${a.dropped} annotations left out`);
  if (l.shortened + a.shortened) parts.push(`${l.shortened + a.shortened} values shortened`);
  if (parts.length)
    out.cut = `${parts.join(", ")} (at most ${ALERT_CAPS.entries} of each, ${ALERT_CAPS.valueLength} characters a value, ${ALERT_CAPS.totalLength / 1024} KiB in all)`;
  return out;
}

/** Every value cut to the value cap: for the inputs a playbook declares (their number is bounded). */
export function shortened(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(map).map(([k, v]) => [
      k,
      v.length > ALERT_CAPS.valueLength ? `${v.slice(0, ALERT_CAPS.valueLength - 1)}…` : v,
    ]),
  );
}
