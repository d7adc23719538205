/**
 * Argument validation against schemas as real MCP servers publish them: draft-07 from
 * zod-to-json-schema (server-filesystem and server-everything 2026.8.31 both list tools this
 * way, `$schema` included), 2020-12 with `$defs`/`$ref`/`format` (zod 4's toJSONSchema),
 * and pydantic's output without `$schema` (Python servers). The shapes follow what those
 * servers' `tools/list` returned; descriptions are left out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileValidator, validateArguments, type JsonSchema } from '../../../src/runtime/declarations/index.ts';

const ok = (schema: JsonSchema, value: unknown) => assert.deepEqual(validateArguments(schema, value), { ok: true }, JSON.stringify(value));
const errors = (schema: JsonSchema, value: unknown, expected: string[]) => assert.deepEqual(validateArguments(schema, value), { ok: false, errors: expected });

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

describe('draft-07 schemas in the style of server-filesystem', () => {
  const editFile = {
    type: 'object',
    properties: {
      path: { type: 'string' },
      edits: {
        type: 'array',
        items: { type: 'object', properties: { oldText: { type: 'string' }, newText: { type: 'string' } }, required: ['oldText', 'newText'] },
      },
      dryRun: { default: false, type: 'boolean' },
    },
    required: ['path', 'edits'],
    $schema: DRAFT_07,
  };
  const readMultiple = {
    type: 'object',
    properties: { paths: { minItems: 1, type: 'array', items: { type: 'string' } } },
    required: ['paths'],
    $schema: DRAFT_07,
  };
  const listWithSizes = {
    type: 'object',
    properties: { path: { type: 'string' }, sortBy: { default: 'name', type: 'string', enum: ['name', 'size'] } },
    required: ['path'],
    $schema: DRAFT_07,
  };

  it('accepts the calls the server accepts', () => {
    ok(editFile, { path: 'a.txt', edits: [{ oldText: 'x', newText: 'y' }] });
    ok(editFile, { path: 'a.txt', edits: [], dryRun: true });
    ok(readMultiple, { paths: ['a', 'b'] });
    ok(listWithSizes, { path: '.', sortBy: 'size' });
    assert.deepEqual(compileValidator(editFile).problems, []);
  });

  it('refuses the calls it would refuse, saying where and what', () => {
    errors(editFile, { path: 'a.txt', edits: [{ oldText: 'x', newText: 'y' }, { oldText: 'x' }], dryRun: 'yes' }, [
      'args.edits[1].newText: required property is missing',
      'args.dryRun: expected boolean, got string',
    ]);
    errors(editFile, { edits: 'all' }, ['args.path: required property is missing', 'args.edits: expected array, got string']);
    errors(readMultiple, { paths: [] }, ['args.paths: expected at least 1 item, got 0']);
    errors(listWithSizes, { path: '.', sortBy: 'date' }, ['args.sortBy: expected one of "name", "size", got "date"']);
  });
});

describe('draft-07 schemas with formats in the style of server-everything', () => {
  const gzip = {
    type: 'object',
    properties: {
      name: { default: 'README.md.gz', type: 'string' },
      data: { default: 'https://example.org/README.md', type: 'string', format: 'uri' },
      outputType: { default: 'resourceLink', type: 'string', enum: ['resourceLink', 'resource'] },
    },
    $schema: DRAFT_07,
  };
  const resourceLinks = {
    type: 'object',
    properties: { count: { default: 3, type: 'number', minimum: 1, maximum: 10 } },
    $schema: DRAFT_07,
  };

  it('checks format uri: URLs and data URIs pass, a bare word does not', () => {
    ok(gzip, {});
    ok(gzip, { data: 'https://example.org/a.md' });
    ok(gzip, { data: 'data:text/plain;base64,aGVsbG8=' });
    errors(gzip, { data: 'readme' }, ['args.data: expected format "uri", got "readme"']);
  });

  it('checks numeric bounds', () => {
    ok(resourceLinks, { count: 10 });
    errors(resourceLinks, { count: 11 }, ['args.count: expected a number <= 10, got 11']);
  });
});

describe('2020-12 schemas with $defs, $ref and format (zod 4 style)', () => {
  const createEvent = {
    $schema: DRAFT_2020,
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1 },
      when: { type: 'string', format: 'date-time' },
      organizer: { $ref: '#/$defs/Person' },
      attendees: { type: 'array', items: { $ref: '#/$defs/Person' } },
      place: { anyOf: [{ $ref: '#/$defs/Place' }, { type: 'null' }] },
      slot: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'integer' }], items: false },
    },
    required: ['title', 'when', 'organizer'],
    additionalProperties: false,
    $defs: {
      Person: {
        type: 'object',
        properties: { email: { type: 'string', format: 'email' }, name: { type: 'string' } },
        required: ['email'],
        additionalProperties: false,
      },
      Place: { type: 'object', properties: { name: { type: 'string' }, capacity: { type: 'integer', exclusiveMinimum: 0 } }, required: ['name'] },
    },
  };
  const base = { title: 'Review', when: '2026-12-01T10:00:00Z', organizer: { email: 'ann@example.org' } };

  it('accepts a well-formed call', () => {
    ok(createEvent, { ...base, attendees: [{ email: 'bob@example.org', name: 'Bob' }], place: { name: 'Room 1', capacity: 8 }, slot: [9, 10] });
    ok(createEvent, { ...base, place: null });
    assert.deepEqual(compileValidator(createEvent).problems, []);
  });

  it('follows $refs and checks formats, with the path of each mistake', () => {
    errors(createEvent, { ...base, when: 'tomorrow', attendees: [{ email: 'bob@example.org' }, { email: 'carol' }] }, [
      'args.when: expected format "date-time", got "tomorrow"',
      'args.attendees[1].email: expected format "email", got "carol"',
    ]);
    errors(createEvent, { ...base, organizer: { name: 'Ann' } }, ['args.organizer.email: required property is missing']);
    errors(createEvent, { ...base, organizer: { email: 'ann@example.org', phone: '1' } }, ['args.organizer.phone: unexpected property (allowed: email, name)']);
    errors(createEvent, { ...base, colour: 'red' }, ['args.colour: unexpected property (allowed: title, when, organizer, attendees, place, slot)']);
  });

  it('blames the anyOf branch the value was meant for, through a $ref', () => {
    errors(createEvent, { ...base, place: { name: 'Room 1', capacity: 0 } }, ['args.place.capacity: expected a number > 0, got 0']);
    errors(createEvent, { ...base, place: 'Room 1' }, ['args.place: expected object or null, got string']);
  });

  it('reads prefixItems with items: false as a closed tuple (2020-12), which draft-07 would not', () => {
    errors(createEvent, { ...base, slot: [9, 10, 11] }, ['args.slot: expected at most 2 items, got 3']);
    errors(createEvent, { ...base, slot: [9, 'ten'] }, ['args.slot[1]: expected integer, got string']);
    // The same keywords under draft-07: prefixItems is unknown there (and reported), and
    // `items: false` forbids every item.
    const draft07 = { $schema: DRAFT_07, type: 'array', prefixItems: [{ type: 'integer' }], items: false };
    assert.deepEqual(compileValidator(draft07).problems, ['unknown keyword: "prefixItems"']);
    errors(draft07, [1], ['args[0]: no value is allowed here']);
    // Without $schema, a keyword only newer drafts have says 2020-12.
    ok({ type: 'array', prefixItems: [{ type: 'integer' }], items: false }, [1]);
    errors({ type: 'object', properties: { a: {} }, unevaluatedProperties: false }, { a: 1, b: 2 }, ['args.b: unexpected property']);
    errors({ type: 'object', dependentRequired: { a: ['b'] } }, { a: 1 }, ['args.b: required property is missing (needed when "a" is present)']);
  });
});

describe('pydantic-style schemas (no $schema, $defs, nullable via anyOf)', () => {
  const schema = {
    $defs: {
      Person: { properties: { name: { title: 'Name', type: 'string' }, age: { title: 'Age', type: 'integer', minimum: 0 } }, required: ['name'], title: 'Person', type: 'object' },
    },
    properties: {
      person: { $ref: '#/$defs/Person' },
      when: { anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }], default: null, title: 'When' },
    },
    required: ['person'],
    title: 'add_personArguments',
    type: 'object',
  };

  it('validates as draft-07 with $defs references', () => {
    ok(schema, { person: { name: 'Ann', age: 3 }, when: null });
    ok(schema, { person: { name: 'Ann' }, when: '2026-12-01' });
    errors(schema, { person: { name: 'Ann', age: -1 }, when: '12/01/2026' }, [
      'args.person.age: expected a number >= 0, got -1',
      'args.when: expected format "date", got "12/01/2026"',
    ]);
  });
});

describe('schemas sharing an $id', () => {
  it('compiles each on its own terms', () => {
    const a = { $id: 'https://example.org/args.json', type: 'object', properties: { n: { type: 'integer' } } };
    const b = { $id: 'https://example.org/args.json', type: 'object', properties: { n: { type: 'string' } } };
    errors(a, { n: 'x' }, ['args.n: expected integer, got string']);
    errors(b, { n: 1 }, ['args.n: expected string, got number']);
    assert.equal(compileValidator(a).enforced, true);
    assert.equal(compileValidator(b).enforced, true);
  });
});
