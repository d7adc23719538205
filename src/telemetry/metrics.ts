/**
 * toolcell's metrics: `gen_ai.execute_tool.duration` (seconds, per tool and outcome, as the
 * GenAI conventions define it), refusals by code (refused calls never open, so they have no
 * span), and calls dropped for each observer (read from the delivery queues' own counters
 * when the reader collects, so dispatch pays nothing for it).
 */
import type { Attributes, Histogram, Counter, Meter, ObservableCounter, ObservableResult } from '@opentelemetry/api';
import type { ToolHost } from '../host/tool-host.ts';
import type { DeliveryQueue } from '../lifecycle/delivery-queue.ts';
import {
  CALL_ORIGIN,
  CALL_OUTCOME,
  DURATION_BUCKETS,
  ERROR_TYPE,
  EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME,
  GEN_AI_TOOL_NAME,
  METRIC_DURATION,
  METRIC_OBSERVER_DROPS,
  METRIC_REFUSALS,
  OBSERVER_ID,
  REFUSAL_CODE,
} from './attributes.ts';

export class ToolMetrics {
  private readonly duration: Histogram;
  private readonly refusals: Counter;
  private readonly drops: ObservableCounter;
  /** Per observer: drops counted so far, and the queue they were read from (a reconnect replaces it). */
  private readonly seen = new Map<string, { queue: DeliveryQueue; read: number; total: number }>();
  private readonly observeDrops = (result: ObservableResult) => this.collectDrops(result);

  constructor(meter: Meter, private readonly host: ToolHost) {
    this.duration = meter.createHistogram(METRIC_DURATION, {
      unit: 's',
      description: 'The duration of a single tool execution.',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    this.refusals = meter.createCounter(METRIC_REFUSALS, {
      unit: '{refusal}',
      description: 'Tool calls refused before they opened, by refusal code.',
    });
    this.drops = meter.createObservableCounter(METRIC_OBSERVER_DROPS, {
      unit: '{call}',
      description: 'Calls an MCPL lifecycle observer never heard about because its queue or rate budget was full.',
    });
    this.drops.addCallback(this.observeDrops);
  }

  /** One execution's duration in seconds; `errorType` when it did not succeed. */
  recordDuration(tool: string, outcome: string, seconds: number, errorType: string | undefined): void {
    const attributes: Attributes = { [GEN_AI_OPERATION_NAME]: EXECUTE_TOOL, [GEN_AI_TOOL_NAME]: tool, [CALL_OUTCOME]: outcome };
    if (errorType !== undefined) attributes[ERROR_TYPE] = errorType;
    this.duration.record(seconds, attributes);
  }

  recordRefusal(code: string, origin: 'model' | 'script'): void {
    this.refusals.add(1, { [REFUSAL_CODE]: code, [CALL_ORIGIN]: origin });
  }

  private collectDrops(result: ObservableResult): void {
    for (const connection of this.host.servers()) {
      const queue = connection.queue;
      const now = queue.stats.droppedCalls;
      let entry = this.seen.get(connection.id);
      // Providers that never observe have nothing to report.
      if (entry === undefined && now === 0 && !connection.lifecycle?.observe) continue;
      if (entry === undefined) this.seen.set(connection.id, (entry = { queue, read: now, total: now }));
      else if (entry.queue !== queue) {
        // A reconnect starts a fresh queue at zero: keep the total monotonic.
        entry.queue = queue;
        entry.total += now;
        entry.read = now;
      } else {
        entry.total += now - entry.read;
        entry.read = now;
      }
      result.observe(entry.total, { [OBSERVER_ID]: connection.id });
    }
  }

  /** Stops reporting observer drops (the histogram and counter simply get no more records). */
  close(): void {
    this.drops.removeCallback(this.observeDrops);
  }
}
