/**
 * The JSON Schema of the `code_execution` result envelope, declared as the tool's
 * `outputSchema`: clients (and the MCP SDK's client, which checks `structuredContent` against
 * it) know the shape of every result, in both languages and every outcome. Kept in step with
 * {@link ResultEnvelope} by a test that validates real results of every outcome against it.
 */

const callSummary = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    status: { type: 'string', enum: ['ok', 'error', 'cancelled'] },
    durationMs: { type: 'number', minimum: 0, description: 'Rounded to 0.1 ms.' },
  },
  required: ['name', 'status', 'durationMs'],
  additionalProperties: false,
} as const;

/** JSON Schema (draft 2020-12 and draft-07 compatible) of `ResultEnvelope`. */
export const RESULT_ENVELOPE_SCHEMA = {
  type: 'object',
  description: 'The result of one code_execution run. Fields other than ok, calls and timeLimit are left out when empty.',
  properties: {
    ok: { type: 'boolean', description: 'True when the script finished within its limits without an uncaught error.' },
    value: { description: 'What the script returned (JavaScript) or its final expression (Python), verbatim.' },
    content: {
      type: 'array',
      description: "The script returned content (image, audio, resource_link, resource, text): one entry per block, and the blocks follow this JSON in the result's content, in order. value is then left out.",
      items: {
        type: 'object',
        properties: {
          type: { type: 'string' },
          mimeType: { type: 'string' },
          bytes: { type: 'integer', minimum: 0, description: 'Decoded bytes of media and blobs; UTF-8 bytes of text.' },
          uri: { type: 'string' },
        },
        required: ['type', 'bytes'],
        additionalProperties: false,
      },
    },
    stdout: { type: 'string', description: 'What the script printed (Python print; JavaScript print when available).' },
    logs: {
      type: 'array',
      description: 'console.* output (JavaScript); Python stderr as one entry of level "error".',
      items: {
        type: 'object',
        properties: {
          level: { type: 'string', enum: ['log', 'info', 'warn', 'error', 'debug'] },
          message: { type: 'string' },
        },
        required: ['level', 'message'],
        additionalProperties: false,
      },
    },
    session: {
      type: 'object',
      description: 'The script session the run used.',
      properties: { fresh: { type: 'boolean', description: 'True when the run started in a fresh session: earlier bindings are gone.' } },
      required: ['fresh'],
      additionalProperties: false,
    },
    converted: {
      type: 'array',
      description: 'Values the script returned that JSON cannot hold as they are, and the JSON form each was given (Map → object or [key, value] pairs, Set → array, BigInt → number or string, NaN/Infinity → string, datetime → ISO text, Decimal → string, dataclass → object…); one entry per kind.',
      items: {
        type: 'object',
        properties: { kind: { type: 'string' }, as: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
        required: ['kind', 'as', 'count'],
        additionalProperties: false,
      },
    },
    normalized: {
      type: 'array',
      description:
        'What was changed in the script before it ran, in order: "fence" (a surrounding Markdown fence was removed), "typescript" (TypeScript types were stripped), "export-default" (the default export was called, or its value returned), "function" (the script was one lone function: it was called and its result returned), "final-expression" (the script had no return: the value of its last expression was returned).',
      items: { type: 'string' },
      minItems: 1,
    },
    error: {
      type: 'object',
      description: 'Why the run failed (present exactly when ok is false).',
      properties: {
        kind: { type: 'string', enum: ['script', 'timeout', 'aborted', 'sandbox'] },
        name: { type: 'string' },
        message: { type: 'string' },
        line: { type: 'integer', minimum: 1, description: "Line of the user's script, where known." },
        column: { type: 'integer', minimum: 1 },
        stack: { type: 'string' },
      },
      required: ['kind', 'message'],
      additionalProperties: false,
    },
    truncated: {
      type: 'object',
      description: 'Present when parts were cut to keep the result within its size cap; each key names what was cut.',
      properties: {
        value: {
          type: 'object',
          description: 'The value was over the size cap: its JSON length and a compact description of its shape. With cuts, value holds its beginning (valid JSON) and each cut says at which JSON path how many array items, object members or string characters were kept of how many; without cuts the value was left out.',
          properties: {
            chars: { type: 'integer', minimum: 0 },
            shape: { type: 'string' },
            cuts: {
              type: 'array',
              items: {
                type: 'object',
                properties: { path: { type: 'string' }, kept: { type: 'integer', minimum: 0 }, of: { type: 'integer', minimum: 0 } },
                required: ['path', 'kept', 'of'],
                additionalProperties: false,
              },
            },
            handle: { type: 'string', description: "The whole value's JSON text is kept under this handle: read it with the result_page tool." },
            more: { type: 'string', description: 'How to read the rest (the result_page call to make), or why it was not kept.' },
          },
          required: ['chars', 'shape'],
          additionalProperties: false,
        },
        stdout: {
          type: 'object',
          description: 'stdout keeps its first part; chars is its full length.',
          properties: { chars: { type: 'integer', minimum: 0 } },
          required: ['chars'],
          additionalProperties: false,
        },
        logs: {
          type: 'object',
          description: 'The first log entries are kept; entries is how many there were.',
          properties: { entries: { type: 'integer', minimum: 0 } },
          required: ['entries'],
          additionalProperties: false,
        },
        error: { type: 'boolean', description: "The error's message or stack was shortened." },
        output: { type: 'boolean', description: 'The runtime itself cut the output (or left out the value) at its own cap.' },
      },
      additionalProperties: false,
    },
    calls: { type: 'array', description: 'The tool calls the script made, in start order (the first 25).', items: callSummary },
    callCount: { type: 'integer', minimum: 0, description: 'How many calls in all, when calls lists only the first ones.' },
    callTotals: {
      type: 'object',
      description: 'Per-tool totals, when calls lists only the first ones.',
      additionalProperties: {
        type: 'object',
        properties: {
          ok: { type: 'integer', minimum: 0 },
          error: { type: 'integer', minimum: 0 },
          cancelled: { type: 'integer', minimum: 0 },
          totalMs: { type: 'number', minimum: 0 },
        },
        required: ['ok', 'error', 'cancelled', 'totalMs'],
        additionalProperties: false,
      },
    },
    status: {
      type: 'string',
      enum: ['running', 'completed', 'cancelled'],
      description: 'Background scripts only: running (the result comes later, from action "wait"), completed, or cancelled.',
    },
    scriptId: { type: 'string', description: 'Background scripts only: the id for action "wait" | "status" | "cancel".' },
    timeLimit: {
      type: 'object',
      properties: {
        requestedMs: { type: 'number' },
        appliedMs: { type: 'number' },
        capped: { type: 'boolean', description: 'The request was above the ceiling and was lowered to it.' },
      },
      required: ['requestedMs', 'appliedMs', 'capped'],
      additionalProperties: false,
    },
  },
  required: ['ok', 'calls', 'timeLimit'],
  additionalProperties: false,
} as const satisfies Record<string, unknown>;
