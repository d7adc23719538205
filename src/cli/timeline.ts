/**
 * Renders what an observer received as a readable timeline: one line per phase, calls made
 * by a script indented under their parent `code_execution` call. Two clocks appear, each in a
 * column of its own and named in {@link TIMELINE_LEGEND}: the left column is when the observer
 * received the event (its own clock, from its first event); `took N ms` is the call's duration
 * as the host measured it (the event's `durationMs`), so the two need not add up exactly.
 */
import { PARENT_META_KEY } from '../lifecycle/events.ts';

export interface Receipt {
  params: Record<string, any>;
  /** Epoch milliseconds when the observer received it. */
  t: number;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** Printed above the timelines: what each clock column means. */
export const TIMELINE_LEGEND =
  '(left: when the observer received each event, by its own clock from its first one; "took": how long the call ran, by the host\'s clock)';

/** A script in an input is shown in full elsewhere (the demo prints it): here it is named, not cut mid-line. */
function shownInput(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || typeof (input as { code?: unknown }).code !== 'string') return input;
  const code = (input as { code: string }).code;
  return { ...input, code: `<the script above, ${code.split('\n').length} lines>` };
}

function detail(p: Record<string, any>): string {
  const parts: string[] = [];
  if (p.phase === 'started') {
    if (p.input !== undefined) {
      const text = JSON.stringify(shownInput(p.input));
      parts.push(`input ${text.length > 90 ? `${text.slice(0, 89)}…` : text}`);
    }
    if (p.inputWithheld) parts.push('input withheld');
    if (p.inputAltered) parts.push('input altered');
  }
  if (p.phase === 'completed' && p.isError) parts.push('error result');
  if (p.durationMs !== undefined) parts.push(`took ${p.durationMs} ms`);
  return parts.join(', ');
}

/** Formats receipts (in arrival order) relative to the first one. */
export function renderTimeline(receipts: readonly Receipt[]): string[] {
  if (receipts.length === 0) return ['  (nothing received)'];
  const t0 = receipts[0]!.t;
  const parents = new Set(receipts.map((r) => r.params._meta?.[PARENT_META_KEY]).filter(Boolean));
  const short = new Map<string, string>();
  const label = (id: string) => {
    if (!short.has(id)) short.set(id, `#${short.size + 1}`);
    return short.get(id)!;
  };
  return receipts.map(({ params: p, t }) => {
    const parent = p._meta?.[PARENT_META_KEY] as string | undefined;
    const indent = parent ? '    └ ' : parents.has(p.toolCallId) ? '' : '';
    const cls = Array.isArray(p.class) && p.class.length ? p.class.join(',') : 'unclassed';
    const when = `+${(t - t0).toFixed(0).padStart(5)} ms`;
    const who = `${indent}${label(p.toolCallId)} ${p.tool} [${cls}]`;
    const extra = detail(p);
    return `  ${when}  ${pad(who, 42)} ${pad(p.phase, 9)} ${extra}`.trimEnd();
  });
}
