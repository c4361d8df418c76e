/**
 * `.aipack` archives and installation (docs/aipack.md section 9).
 *
 * The archive is a Deflate zip of the rendered pack, entries relative to the pack directory (`pack.toml` at the
 * root), sorted, with one fixed modification time: packing twice gives the same bytes.
 */
import { join, resolve } from 'node:path';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { parse as parseToml } from 'smol-toml';
import { isDirectory, listNames, lstatOf, readBytes, readNoFollow, realPathOf, writeOutputFile } from '../support/host-fs.ts';
import { ownDir, packFiles, syncDir, type SyncResult } from './build.ts';

const PACK_ID_REGEX = /^[a-zA-Z_][a-zA-Z0-9_-]*$/;
const PACK_VERSION_REGEX = /^(\d+)\.(\d+)\.(\d+)(?:-([a-zA-Z][\w-]*)(?:\.(\d+))?)?$/;

/**
 * The modification time of every entry. fflate writes DOS times from the Date's local-time fields, so the
 * Date is built from local fields too: the bytes do not depend on the time zone.
 */
const ZIP_MTIME = new Date(2000, 0, 1, 0, 0, 0);

export class PackTomlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackTomlError';
  }
}

export interface PackIdentity {
  namespace: string;
  name: string;
  version: string;
}

/**
 * Reads and validates pack.toml: a `[pack]` table with non-empty namespace, name and version; namespace and
 * name match PACK_ID_REGEX; version matches PACK_VERSION_REGEX; and, as `aip install` requires, a prerelease
 * ends with `.N` (`0.1.1-alpha` is rejected, `0.1.1-alpha.1` is fine).
 */
export function parsePackToml(text: string): PackIdentity {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new PackTomlError(`pack.toml: invalid TOML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const pack = doc.pack;
  if (typeof pack !== 'object' || pack === null || Array.isArray(pack)) {
    throw new PackTomlError('pack.toml: missing [pack] section');
  }
  const get = (key: 'namespace' | 'name' | 'version'): string => {
    const v = (pack as Record<string, unknown>)[key];
    if (v === undefined || v === '') throw new PackTomlError(`pack.toml: [pack] ${key} is missing`);
    if (typeof v !== 'string') throw new PackTomlError(`pack.toml: [pack] ${key} must be a string`);
    return v;
  };
  const id: PackIdentity = { namespace: get('namespace'), name: get('name'), version: get('version') };
  for (const key of ['namespace', 'name'] as const) {
    if (!PACK_ID_REGEX.test(id[key])) {
      throw new PackTomlError(
        `pack.toml: ${key} "${id[key]}" is invalid (letters, digits, _ and -, not starting with a digit or -)`,
      );
    }
  }
  const m = PACK_VERSION_REGEX.exec(id.version);
  if (!m) {
    throw new PackTomlError(
      `pack.toml: version "${id.version}" is invalid (expected MAJOR.MINOR.PATCH with an optional -prerelease[.N], e.g. 0.1.0 or 0.2.0-alpha.1)`,
    );
  }
  if (m[4] !== undefined && m[5] === undefined) {
    throw new PackTomlError(
      `pack.toml: version "${id.version}" cannot be installed: a prerelease must end with .N (e.g. ${id.version}.1)`,
    );
  }
  return id;
}

/** `<namespace>@<name>-v<version>.aipack` */
const archiveFileName = (id: PackIdentity) => `${id.namespace}@${id.name}-v${id.version}.aipack`;

/** Zips pack files (pack-relative paths) in sorted order with the fixed mtime. */
function zipPack(files: Map<string, string>): Uint8Array {
  const entries: Zippable = {};
  for (const path of [...files.keys()].sort()) entries[path] = Buffer.from(files.get(path)!, 'utf8');
  return zipSync(entries, { level: 6, mtime: ZIP_MTIME });
}

export interface BuiltArchive {
  identity: PackIdentity;
  fileName: string;
  bytes: Uint8Array;
  files: string[];
}

/** The pack of `root` (sources or built), validates its pack.toml and zips it. */
export function buildArchive(root: string): BuiltArchive {
  const files = packFiles(root);
  const toml = files.get('pack.toml');
  if (toml === undefined) throw new PackTomlError('pack.toml is missing from the pack');
  const identity = parsePackToml(toml);
  return { identity, fileName: archiveFileName(identity), bytes: zipPack(files), files: [...files.keys()] };
}

/** Builds the archive and writes it into `outDir` (created when missing). */
export function writeArchive(root: string, outDir: string): BuiltArchive & { path: string } {
  const built = buildArchive(root);
  const path = resolve(outDir, built.fileName);
  writeOutputFile(path, built.bytes);
  return { ...built, path };
}

/** The entries of an `.aipack` (zip) file, by path. */
export function readAipack(file: string): Map<string, Uint8Array> {
  const entries = unzipSync(new Uint8Array(readBytes(file)));
  return new Map(Object.keys(entries).sort().map((k) => [k, entries[k]!] as const));
}

// ---------------------------------------------------------------------------------------------------------------
// install

export class InstallRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallRefused';
  }
}

/** The version in an installed pack's pack.toml; undefined when there is none, null when unreadable. */
function installedVersion(dir: string): string | null | undefined {
  const file = join(dir, 'pack.toml');
  if (!lstatOf(file)) return undefined;
  // a pack.toml that is a symlink is not read (it would show a host file's text in the message): unreadable
  const bytes = readNoFollow(file);
  if (bytes === undefined) return null;
  try {
    const doc = parseToml(bytes.toString('utf8')) as { pack?: { version?: unknown } };
    return typeof doc.pack?.version === 'string' ? doc.pack.version : null;
  } catch {
    return null;
  }
}

export interface InstallResult extends SyncResult {
  identity: PackIdentity;
  /** the pack directory written */
  dir: string;
  /** the version found there before, when one was */
  previousVersion?: string;
}

/**
 * Copies the rendered pack of `root` into `<workspace>/.aipack/pack/custom/<namespace>/<name>/` (creating
 * `.aipack/` when missing). A different version already there (or a directory that is not a pack) is refused
 * unless `force`. The directory ends up holding exactly the rendered files.
 */
export function installPack(root: string, workspace: string, options: { force?: boolean } = {}): InstallResult {
  const files = packFiles(root);
  const identity = parsePackToml(files.get('pack.toml') ?? '');
  const ws = resolve(workspace);
  if (!isDirectory(ws)) throw new InstallRefused(`the workspace ${ws} is not a directory`);
  const rel = `.aipack/pack/custom/${identity.namespace}/${identity.name}`;
  const realWs = realPathOf(ws);
  const dir = join(realWs, ...rel.split('/'));
  const ref = `${identity.namespace}@${identity.name}`;
  // every segment from the workspace down must be a real directory: a cloned repository's symlink there would
  // make install write (and remove stale files) wherever it points
  for (let cur = realWs, i = 0, segs = rel.split('/'); i < segs.length; i++) {
    cur = join(cur, segs[i]!);
    const st = lstatOf(cur);
    if (st?.isSymbolicLink()) throw new InstallRefused(`${cur} is a symlink; install does not write through it (remove the link, then install again)`);
    if (st && !st.isDirectory()) throw new InstallRefused(`${cur} is a file, expected a directory (remove it, then install again)`);
    if (!st) break;
  }
  let previousVersion: string | undefined;
  if (listNames(dir).length > 0) {
    const found = installedVersion(dir);
    if (typeof found === 'string') previousVersion = found;
    if (!options.force) {
      if (found === undefined || found === null) {
        throw new InstallRefused(
          `${dir} already exists and holds no readable pack.toml; use --force to replace it with ${ref} ${identity.version}`,
        );
      }
      if (found !== identity.version) {
        throw new InstallRefused(
          `${ref} ${found} is already installed at ${dir}; use --force to replace it with ${identity.version}`,
        );
      }
    }
  }
  ownDir(realWs, rel, 'install');
  const sync = syncDir(dir, files);
  return { ...sync, identity, dir, ...(previousVersion !== undefined ? { previousVersion } : {}) };
}
