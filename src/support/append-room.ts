/**
 * A file's bytes grown by an append: a file held in memory and appended to line by line (a log) keeps room after
 * its bytes, so each append copies what it adds, not the whole file again.
 */

/** from this size on, a file appended to keeps room to grow */
const ROOM_FROM = 64 * 1024;

export interface Grown {
  /** the file's bytes now: the start of `room` */
  data: Uint8Array;
  /** what `data` is the start of; the bytes after it are free */
  room: Uint8Array;
}

/**
 * `data` followed by `bytes`, written into `room` when `data` is its start and it has the space. A new room is an
 * eighth larger than what it holds (at least what is added): copying the file again is then rare, and the room it
 * holds unused stays small beside the file. `data` itself (and any copy of it a reader took) is never changed.
 */
export function appendInto(data: Uint8Array, room: Uint8Array | undefined, bytes: Uint8Array): Grown {
  const size = data.length;
  const need = size + bytes.length;
  let into = room;
  if (into === undefined || into.length < need || into.buffer !== data.buffer || data.byteOffset !== into.byteOffset) {
    into = new Uint8Array(need < ROOM_FROM ? need : need + (need >> 3));
    into.set(data);
  }
  into.set(bytes, size);
  return { data: into.subarray(0, need), room: into };
}
