/**
 * Memory of a browser as the operating system sees it, for any engine: the processes whose command
 * line names a marker (the persistent profile directory a test launched the browser with) and all
 * their descendants (Firefox's and Chromium's content, GPU and utility processes, WebKit's web
 * process), summed. Each process counts its proportional set size (`Pss` of
 * /proc/<pid>/smaps_rollup: shared pages divided among the processes that map them), or its
 * resident set (`VmRSS`) where the kernel has no smaps_rollup. This is what the page, its workers,
 * their wasm memories, ArrayBuffers, Blobs kept in memory and the engine's own buffers really
 * occupy, so it bounds a test's memory where no engine-specific heap API exists (Linux /proc only).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Why process memory cannot be measured here, or undefined when it can. */
export function processMemoryUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `process memory is read from /proc, which ${process.platform} does not have`;
  try {
    readFileSync('/proc/self/status', 'utf8');
    return undefined;
  } catch (e) {
    return `/proc/self/status is not readable (${(e as Error).message})`;
  }
}

function pids(): number[] {
  return readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process exited between the listing and the read
  }
}

function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // "pid (comm) state ppid …": comm may contain spaces and parentheses, so split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[1]);
}

function kib(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m === null ? undefined : Number(m[1]);
}

/** Bytes of one process: Pss where the kernel reports it, else VmRSS (0 once it has exited). */
function processBytes(pid: number): number {
  const pss = kib(read(`/proc/${pid}/smaps_rollup`), 'Pss');
  return 1024 * (pss ?? kib(read(`/proc/${pid}/status`), 'VmRSS') ?? 0);
}

/**
 * The processes whose command line contains `marker` (with `exact`: has an argument equal to it), and
 * all their descendants.
 */
export function processTree(marker: string, exact = false): number[] {
  const all = pids();
  const roots = all.filter((pid) => pid !== process.pid && (read(`/proc/${pid}/cmdline`) ?? '').split('\0').some((a) => (exact ? a === marker : a.includes(marker))));
  const children = new Map<number, number[]>();
  for (const pid of all) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree = new Set<number>();
  const visit = (pid: number): void => {
    if (tree.has(pid)) return;
    tree.add(pid);
    for (const c of children.get(pid) ?? []) visit(c);
  };
  roots.forEach(visit);
  return [...tree];
}

/** The summed memory of {@link processTree}(`marker`, `exact`) now, and how many processes it has. */
export function treeMemory(marker: string, exact = false): { bytes: number; processes: number } {
  const tree = processTree(marker, exact);
  return { bytes: tree.reduce((sum, pid) => sum + processBytes(pid), 0), processes: tree.length };
}
