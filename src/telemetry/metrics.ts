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
  DURATION_BUCKETS,
  METRIC_DURATION,
  METRIC_OBSERVER_DROPS,
  METRIC_REFUSALS,
  OBSERVER_ID,
  REFUSAL_CODE,
} from './attributes.ts';
import { redactAttributes } from './redact.ts';

export class ToolMetrics {
  private readonly duration: Histogram;
  private readonly refusals: Counter;
  private readonly drops: ObservableCounter;
  /** Per observer: drops counted so far, and the queue they were read from (a reconnect replaces it). */
  private readonly seen = new Map<string, { queue: DeliveryQueue; read: number; total: number }>();
  private readonly observeDrops = (result: ObservableResult) => this.collectDrops(result);
  private readonly refusalAttributes = new Map<string, { model: Attributes; script: Attributes }>();

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

  /** One execution's duration in seconds, with its tool's attribute set for the outcome (see tool-shapes.ts). */
  recordDuration(seconds: number, attributes: Attributes): void {
    this.duration.record(seconds, attributes);
  }

  recordRefusal(code: string, origin: 'model' | 'script'): void {
    // Refusal codes are a small fixed set: one attribute set per code and origin, kept.
    let pair = this.refusalAttributes.get(code);
    if (pair === undefined) {
      pair = { model: Object.freeze(redactAttributes({ [REFUSAL_CODE]: code, [CALL_ORIGIN]: 'model' })), script: Object.freeze(redactAttributes({ [REFUSAL_CODE]: code, [CALL_ORIGIN]: 'script' })) };
      this.refusalAttributes.set(code, pair);
    }
    this.refusals.add(1, pair[origin]);
  }

  private collectDrops(result: ObservableResult): void {
    for (const connection of this.host.servers()) {
      const queue = connection.queue;
      const now = queue.stats.droppedCalls;
      let entry = this.seen.get(connection.id);
      // Providers that never observe have nothing to report.
      if (entry === undefined && now === 0 && !connection.lifecycle?.observe) continue;
      // A reconnect's queue goes on from the old one's count (DeliveryQueueOptions.carried):
      // the count is monotonic per connection as it is.
      if (entry === undefined) this.seen.set(connection.id, (entry = { queue, read: now, total: now }));
      else {
        entry.queue = queue;
        entry.total = Math.max(entry.total, now);
        entry.read = now;
      }
      result.observe(entry.total, redactAttributes({ [OBSERVER_ID]: connection.id }));
    }
  }

  /** Stops reporting observer drops (the histogram and counter simply get no more records). */
  close(): void {
    this.drops.removeCallback(this.observeDrops);
  }
}
