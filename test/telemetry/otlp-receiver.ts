/**
 * A loopback OTLP/HTTP receiver for tests: accepts JSON trace exports on `/v1/traces` and
 * keeps every span, flattened (hex ids, plain attribute values, service name), and JSON metric
 * exports on `/v1/metrics`, keeping each metric's name and service. Tests wait on it for the
 * spans and metrics they assert.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '../helpers/peers.ts';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  events: { name: string; attributes: Record<string, unknown> }[];
}

export interface ReceivedMetric {
  service: string;
  name: string;
}

export interface Receiver {
  /** Base URL (`http://127.0.0.1:port`); exporters add `/v1/traces`. */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  /** Headers of each accepted export request. */
  readonly headers: Record<string, string | string[] | undefined>[];
  /** Requests that were not OTLP JSON trace exports (should stay empty). */
  readonly rejected: string[];
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, label: string, timeoutMs?: number): Promise<ReceivedSpan[]>;
  waitForMetrics(predicate: (metrics: ReceivedMetric[]) => boolean, label: string, timeoutMs?: number): Promise<ReceivedMetric[]>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributes(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = plain(value);
  return out;
}

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const rejected: string[] = [];
  const headers: Record<string, string | string[] | undefined>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/v1/metrics' && String(req.headers['content-type']).includes('application/json')) {
        headers.push(req.headers);
        const payload = JSON.parse(body) as { resourceMetrics?: any[] };
        for (const rm of payload.resourceMetrics ?? []) {
          const service = String(attributes(rm.resource?.attributes)['service.name']);
          for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) metrics.push({ service, name: m.name });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('application/json')) {
        rejected.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(404).end();
        return;
      }
      headers.push(req.headers);
      const payload = JSON.parse(body) as { resourceSpans?: any[] };
      for (const rs of payload.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              attributes: attributes(s.attributes),
              status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
              events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: attributes(e.attributes) })),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    headers,
    rejected,
    waitFor: (predicate, label, timeoutMs = 15_000) => waitUntil(() => (predicate(spans) ? spans : undefined), label, timeoutMs),
    waitForMetrics: (predicate, label, timeoutMs = 15_000) => waitUntil(() => (predicate(metrics) ? metrics : undefined), label, timeoutMs),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
