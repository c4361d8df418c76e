/**
 * `aip.time.*` (docs/aipack.md section 7.9). The clock and the local time zone are read through `clock`, which tests
 * and the simulator may replace (e.g. `clock.now = () => new Date('2025-08-23T14:35:12Z')`).
 * JS dates carry milliseconds only, so the `*_micro` values end in "000".
 */
import type { AipNamespaceFactory } from './types.ts';

/** the process's zone, read again only when TZ changes (Node applies a new TZ at once) */
let processZone: { tz: string | undefined; zone: string } | undefined;

export const clock = {
  now: (): Date => new Date(),
  /** IANA id of the "local" zone; invalid ids fall back to UTC. */
  timeZone: (): string => {
    const tz = process.env.TZ;
    if (processZone === undefined || processZone.tz !== tz) processZone = { tz, zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
    return processZone.zone;
  },
};

/** Formatters by zone id, null for an id Intl does not know: making one costs ~0.2 ms, a run asks for few zones. */
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const FORMATTERS_MAX = 64;

function formatterFor(timeZone: string): Intl.DateTimeFormat | null {
  let fmt = formatters.get(timeZone);
  if (fmt !== undefined) return fmt;
  try {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  } catch {
    fmt = null;
  }
  if (formatters.size >= FORMATTERS_MAX) formatters.clear();
  formatters.set(timeZone, fmt);
  return fmt;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  weekday: string;
  /** offset from UTC in minutes (east positive) */
  offset: number;
}

function utcFields(d: Date): Fields {
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), ms: d.getUTCMilliseconds(),
    weekday: WEEKDAYS[d.getUTCDay()], offset: 0,
  };
}

function zoneFields(d: Date, timeZone: string): Fields {
  const fmt = formatterFor(timeZone);
  if (fmt === null) return utcFields(d); // unknown zone id
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(d)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const wholeSeconds = d.getTime() - (((d.getTime() % 1000) + 1000) % 1000);
  const offset = Math.round((asUtc - wholeSeconds) / 60000);
  return {
    year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second,
    ms: ((d.getTime() % 1000) + 1000) % 1000,
    weekday: WEEKDAYS[new Date(Date.UTC(parts.year, parts.month - 1, parts.day)).getUTCDay()],
    offset,
  };
}

const p2 = (n: number): string => String(n).padStart(2, '0');
const isoDate = (f: Fields): string => `${String(f.year).padStart(4, '0')}-${p2(f.month)}-${p2(f.day)}`;

function isoDateTime(f: Fields, micro: boolean, utc: boolean): string {
  const frac = micro ? `.${String(f.ms).padStart(3, '0')}000` : '';
  let zone = 'Z';
  if (!utc) {
    const sign = f.offset < 0 ? '-' : '+';
    const abs = Math.abs(f.offset);
    zone = `${sign}${p2(Math.floor(abs / 60))}:${p2(abs % 60)}`;
  }
  return `${isoDate(f)}T${p2(f.hour)}:${p2(f.minute)}:${p2(f.second)}${frac}${zone}`;
}

const utcNow = (): Fields => utcFields(clock.now());
const localNow = (): Fields => zoneFields(clock.now(), clock.timeZone());

export const time: AipNamespaceFactory = () => ({
  now_iso_utc: () => isoDateTime(utcNow(), false, true),
  now_iso_local: () => isoDateTime(localNow(), false, false),
  now_iso_utc_micro: () => isoDateTime(utcNow(), true, true),
  now_iso_local_micro: () => isoDateTime(localNow(), true, false),
  now_utc_micro: () => clock.now().getTime() * 1000,
  today_utc: () => {
    const f = utcNow();
    return `${f.weekday} ${isoDate(f)}`;
  },
  today_local: () => {
    const f = localNow();
    return `${f.weekday} ${isoDate(f)}`;
  },
  today_iso_utc: () => isoDate(utcNow()),
  today_iso_local: () => isoDate(localNow()),
  weekday_utc: () => utcNow().weekday,
  weekday_local: () => localNow().weekday,
  local_tz_id: () => {
    const tz = clock.timeZone();
    return formatterFor(tz) === null ? 'UTC' : tz;
  },
});
