/**
 * The one sandbox thread of a runtime whose pool is limited to one, and the parts of it the
 * bridge tests read (its board and how often the host watched for it). Imports nothing of node:test, so a child
 * process of a test (fixtures/) can use it too.
 */
import type { JsRuntime } from '../../../src/runtime/js/index.ts';

export interface ThreadView {
  board: Int32Array;
  watches: number;
}

export function onlyThread(runtime: JsRuntime): ThreadView {
  const hosts = [...(runtime as unknown as { quickjs: { hosts: Set<{ process: unknown }> } }).quickjs.hosts];
  if (hosts.length !== 1) throw new Error(`expected one sandbox thread, found ${hosts.length}`);
  return hosts[0]!.process as ThreadView;
}
