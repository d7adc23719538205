/**
 * The OS layer around script processes: on Linux with bubblewrap, every script process runs
 * in its own namespaces on a read-only minimal file system; without it, processes are plain
 * and only process-tree cleanup applies. See README "The OS layer".
 */
export { bwrapArgv, bwrapCommand, type BwrapCommand, type BwrapSpec, type SystemLayout } from './bwrap-argv.ts';
export { findBwrap, probeBwrap, type BwrapProbe } from './probe.ts';
export { selectIsolation, type DiagnosticSink, type SelectOptions } from './select.ts';
export { ScriptProcess, spawnIsolated, type LaunchRequest } from './launch.ts';
export { killProcessTree } from './process-tree.ts';
export { systemLayout } from './system-layout.ts';
export { checkMode, checkMounts, IsolationError, ISOLATION_MODES, type IsolationMode, type IsolationPlan, type MountGrant } from './types.ts';
export { capMessages, capped, checkCaps, formatBytes, JS_PROCESS_CAPS, planCaps, PYTHON_CAPS, type CapPlan, type CheckedCaps, type MemoryMeasure, type ScriptCaps } from './caps.ts';
export { PidsGroup, pidsHierarchy } from './pids-cgroup.ts';
