import { afterEach, describe, expect, it } from 'vitest';
import { clock, time } from '../../src/aip/time.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const tm = time({} as StageEnv) as Record<string, () => unknown>;
const original = { now: clock.now, timeZone: clock.timeZone };

function setNow(iso: string, timeZone: string): void {
  clock.now = () => new Date(iso);
  clock.timeZone = () => timeZone;
}

afterEach(() => {
  clock.now = original.now;
  clock.timeZone = original.timeZone;
});

describe('aip.time', () => {
  it('formats UTC values', () => {
    setNow('2025-08-23T14:35:12.123Z', 'America/New_York');
    expect(tm.now_iso_utc()).toBe('2025-08-23T14:35:12Z');
    expect(tm.now_iso_utc_micro()).toBe('2025-08-23T14:35:12.123000Z');
    expect(tm.now_utc_micro()).toBe(Date.parse('2025-08-23T14:35:12.123Z') * 1000);
    expect(tm.today_utc()).toBe('Saturday 2025-08-23');
    expect(tm.today_iso_utc()).toBe('2025-08-23');
    expect(tm.weekday_utc()).toBe('Saturday');
  });

  it('formats local values with the zone offset (DST aware)', () => {
    setNow('2025-08-23T14:35:12.123Z', 'America/New_York');
    expect(tm.now_iso_local()).toBe('2025-08-23T10:35:12-04:00');
    expect(tm.now_iso_local_micro()).toBe('2025-08-23T10:35:12.123000-04:00');
    expect(tm.local_tz_id()).toBe('America/New_York');
    setNow('2025-01-10T03:00:00Z', 'America/New_York');
    expect(tm.now_iso_local()).toBe('2025-01-09T22:00:00-05:00');
    expect(tm.today_local()).toBe('Thursday 2025-01-09');
    expect(tm.today_iso_local()).toBe('2025-01-09');
    expect(tm.weekday_local()).toBe('Thursday');
  });

  it('handles half-hour offsets east of UTC and the UTC zone', () => {
    setNow('2025-08-23T20:00:00Z', 'Asia/Kolkata');
    expect(tm.now_iso_local()).toBe('2025-08-24T01:30:00+05:30');
    expect(tm.weekday_local()).toBe('Sunday');
    setNow('2025-08-23T20:00:00Z', 'UTC');
    expect(tm.now_iso_local()).toBe('2025-08-23T20:00:00+00:00');
  });

  it('falls back to UTC for an unknown zone id', () => {
    setNow('2025-08-23T20:00:00Z', 'Not/AZone');
    expect(tm.local_tz_id()).toBe('UTC');
    expect(tm.now_iso_local()).toBe('2025-08-23T20:00:00+00:00');
  });

  it('keeps each zone apart when zones alternate, an unknown one included', () => {
    for (let i = 0; i < 3; i++) {
      setNow('2025-08-23T20:00:00Z', 'Asia/Kolkata');
      expect(tm.now_iso_local()).toBe('2025-08-24T01:30:00+05:30');
      setNow('2025-08-23T20:00:00Z', 'Not/AZone');
      expect(tm.now_iso_local()).toBe('2025-08-23T20:00:00+00:00');
      setNow('2025-08-23T20:00:00Z', 'America/New_York');
      expect(tm.now_iso_local()).toBe('2025-08-23T16:00:00-04:00');
    }
  });

  it('reads the process zone again when TZ changes', () => {
    const before = process.env.TZ;
    clock.now = () => new Date('2025-08-23T20:00:00Z');
    try {
      process.env.TZ = 'Europe/Paris';
      expect(tm.local_tz_id()).toBe('Europe/Paris');
      expect(tm.now_iso_local()).toBe('2025-08-23T22:00:00+02:00');
      process.env.TZ = 'America/New_York';
      expect(tm.local_tz_id()).toBe('America/New_York');
      expect(tm.now_iso_local()).toBe('2025-08-23T16:00:00-04:00');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});
