/** Where the pack's files live in a checkout, relative to its root: a module of its own, so that asking costs no load. */

/** Directory of the hand-written pack sources. */
export const SOURCE_DIR = 'lua';
/** Directory `build` writes. */
export const PACK_DIR = 'pack';
