/**
 * A stdio transport for one spawned MCP/MCPL server, implementing the SDK's `Transport`.
 *
 * Why not the SDK's own `StdioClientTransport`: toolcell needs three things it does not
 * give. Lifecycle notifications are written in batches (one `write` per drain of an
 * observer's queue, not one per message), so that four observers cost little. Writes report
 * back-pressure to the caller, so a stuck observer fills a bounded queue instead of memory.
 * A line that is not JSON-RPC is logged and skipped without tearing the connection down, and
 * a line over the size limit fails the request it answered at once (see oversized-line.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RESPONSE_TOO_LARGE, type GarbageLine, type HostTransport, type WireFrame } from './types.ts';
import { OversizedLine } from './oversized-line.ts';

export interface StdioServerParams {
  command: string;
  args?: string[];
  /** Full environment for the child. The caller decides what is inherited. */
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Largest line accepted from the server, in bytes (default 16 MiB); a longer line is
   * dropped and logged, and when it answered one of our requests that request fails.
   */
  maxLineBytes?: number;
}

export type { GarbageLine, WireFrame };

const NEWLINE = 0x0a;
/** How long the output of an exited server may still drain before its pipes are dropped. */
const EXIT_DRAIN_MS = 250;
export class StdioTransport implements HostTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called for each skipped stdout line. */
  ongarbage?: (garbage: GarbageLine) => void;
  /** Called with each chunk the server writes to stderr. */
  onstderr?: (chunk: string) => void;
  /** Called with every message sent and received (a wire log); unset costs nothing. */
  onwire?: (frame: WireFrame) => void;

  /** The MCP protocol version agreed at `initialize` (the SDK client reports it here). */
  protocolVersion: string | undefined;
  private child: ChildProcess | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  private readonly maxLineBytes: number;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** The line being dropped for exceeding the limit, until its end arrives. */
  private oversized: OversizedLine | undefined;
  /** The pending wait for the child's stdin to drain, shared by every blocked writer. */
  private drain: Promise<void> | undefined;

  constructor(private readonly params: StdioServerParams) {
    this.maxLineBytes = params.maxLineBytes ?? 16 * 1024 * 1024;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  /** The child's pid once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the child ended, once it has. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exitInfo;
  }

  get isOpen(): boolean {
    return !this.closed && this.child !== undefined;
  }

  /** True while the child's stdin has unflushed data above its high-water mark. */
  get congested(): boolean {
    return this.child?.stdin?.writableNeedDrain ?? false;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('StdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args ?? [], {
        env: this.params.env ?? {},
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
      });
      this.child = child;
      let spawned = false;
      child.on('error', (error) => {
        if (!spawned) {
          this.closed = true;
          reject(error);
          return;
        }
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        spawned = true;
        resolve();
      });
      // A grandchild (npx's, a wrapper's) can hold the pipes open after the process we
      // started is gone, and 'close' waits for every holder: once ours has exited and its last
      // output had time to drain, the pipes are dropped so the end is seen now.
      child.on('exit', () => {
        setTimeout(() => {
          child.stdin?.destroy();
          child.stdout?.destroy();
          child.stderr?.destroy();
        }, EXIT_DRAIN_MS).unref();
      });
      child.on('close', (code, signal) => {
        this.exitInfo = { code, signal };
        this.finish();
      });
      // EPIPE when the server exits while we write: the close event reports the end.
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => this.onstderr?.(chunk));
    });
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const index = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, index === -1 ? chunk.length : index);
      if (this.oversized) this.oversized.add(piece);
      else if (this.pendingBytes + piece.length > this.maxLineBytes) {
        // Past the limit the line is no longer kept, only its ends (to find its id) and its size.
        this.oversized = new OversizedLine([...this.pending, piece]);
        this.pending = [];
        this.pendingBytes = 0;
      } else if (piece.length > 0) {
        this.pending.push(piece);
        this.pendingBytes += piece.length;
      }
      if (index === -1) return;
      start = index + 1;
      if (this.oversized) {
        this.endOversized(this.oversized);
        this.oversized = undefined;
      } else {
        const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        if (line.length > 0) this.handleLine(line);
      }
    }
  }

  /**
   * A line over the limit was dropped. When it was the answer to one of our requests, that
   * request fails now with an error naming the limit and the size, instead of waiting for a
   * timeout; the connection goes on.
   */
  private endOversized(line: OversizedLine): void {
    const reason = `a message of ${line.bytes} bytes exceeds this transport's limit of ${this.maxLineBytes} bytes`;
    this.ongarbage?.({ line: `${line.head.toString('utf8', 0, 80)}…`, reason });
    const id = line.responseId();
    if (id === undefined) return;
    const message: JSONRPCMessage = { jsonrpc: '2.0', id, error: { code: RESPONSE_TOO_LARGE, message: `the response was dropped: ${reason}` } };
    this.onwire?.({ direction: 'in', message });
    this.onmessage?.(message);
  }

  private handleLine(raw: Buffer): void {
    let text = raw.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.ongarbage?.({ line: text.slice(0, 200), reason: 'not JSON' });
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.ongarbage?.({ line: text.slice(0, 200), reason: 'not a JSON-RPC message' });
      return;
    }
    this.onwire?.({ direction: 'in', message: parsed.data });
    this.onmessage?.(parsed.data);
  }

  /** Sends one message; resolves once the pipe accepted it (after a drain if congested). */
  send(message: JSONRPCMessage): Promise<void> {
    return this.writeRaw(JSON.stringify(message) + '\n');
  }

  /**
   * Writes already-serialized, newline-terminated messages. Resolves when the pipe has room
   * again, which is how callers respect back-pressure.
   */
  writeRaw(data: string): Promise<void> {
    if (this.onwire) {
      for (const line of data.split('\n')) if (line) this.onwire({ direction: 'out', message: JSON.parse(line) as JSONRPCMessage });
    }
    const stdin = this.child?.stdin;
    if (this.closed || !stdin || stdin.destroyed) return Promise.reject(new Error('transport closed'));
    if (stdin.write(data)) return Promise.resolve();
    return this.drained(stdin);
  }

  /**
   * One wait for `drain` shared by every blocked writer: a listener per write would pile up
   * (MaxListenersExceededWarning with 11 writers behind a full pipe).
   */
  private drained(stdin: NodeJS.WritableStream & { off: NodeJS.WritableStream['removeListener'] }): Promise<void> {
    this.drain ??= new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        cleanup();
        resolve();
      };
      const onClose = () => {
        cleanup();
        reject(new Error('transport closed'));
      };
      const cleanup = () => {
        this.drain = undefined;
        stdin.off('drain', onDrain);
        stdin.off('close', onClose);
      };
      stdin.once('drain', onDrain);
      stdin.once('close', onClose);
    });
    return this.drain;
  }

  /** Ends stdin, then escalates to SIGTERM and SIGKILL if the child lingers. */
  async close(graceMs = 500): Promise<void> {
    const child = this.child;
    if (!child || this.exitInfo) {
      this.finish();
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    child.stdin?.end();
    const term = setTimeout(() => child.kill('SIGTERM'), graceMs);
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs * 2);
    await exited;
    clearTimeout(term);
    clearTimeout(kill);
  }

  /** Kills the child at once (used by tests and by shutdown after the grace). */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.child?.kill(signal);
  }
}
