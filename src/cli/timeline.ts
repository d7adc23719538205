/**
 * Renders what an observer received as a readable timeline: one line per phase, calls made
 * by a script indented under their parent `code_execution` call.
 */
import { PARENT_META_KEY } from '../lifecycle/events.ts';

export interface Receipt {
  params: Record<string, any>;
  /** Epoch milliseconds when the observer received it. */
  t: number;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

function detail(p: Record<string, any>): string {
  const parts: string[] = [];
  if (p.phase === 'started') {
    if (p.input !== undefined) {
      const text = JSON.stringify(p.input);
      parts.push(`input ${text.length > 90 ? `${text.slice(0, 89)}…` : text}`);
    }
    if (p.inputWithheld) parts.push('input withheld');
    if (p.inputAltered) parts.push('input altered');
  }
  if (p.phase === 'completed' && p.isError) parts.push('error result');
  if (p.durationMs !== undefined) parts.push(`${p.durationMs} ms`);
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
    const when = `+${(t - t0).toFixed(0).padStart(4)} ms`;
    const who = `${indent}${label(p.toolCallId)} ${p.tool} [${cls}]`;
    const extra = detail(p);
    return `  ${when}  ${pad(who, 42)} ${pad(p.phase, 9)} ${extra}`.trimEnd();
  });
}
