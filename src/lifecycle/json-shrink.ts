/**
 * Shrinks a JSON object until its serialization fits a UTF-8 byte budget (RFC-007 §5.2):
 * strings become prefixes (never split inside a code point or an escape), arrays keep a
 * prefix of their elements, and object members that cannot fit are removed while later,
 * smaller members are still tried. Containers emptied by this are removed too.
 *
 * Works on the value as given, without a serialize/parse round trip: each string is scanned
 * at most up to the room left for it, so a huge argument costs about the budget, not its
 * own size. Nothing is modified; unchanged subtrees are shared with the input.
 */
import { isPlainObject, setMember } from './field-select.ts';

/** Nesting deeper than this is dropped rather than walked. */
const MAX_DEPTH = 64;

/** A value within a byte budget: its serialized size, and whether anything in it was cut. */
interface Fitted {
  value: unknown;
  size: number;
  cut: boolean;
}

/** What JSON.stringify leaves out of objects (and turns into `null` in arrays). */
const OMIT = Symbol('omit');

/**
 * The reshaped object, or `undefined` when not even one member fits. The input must be
 * serializable by `JSON.stringify` (no cycles, no BigInt).
 */
export function shrinkToBytes(input: Readonly<Record<string, unknown>>, maxBytes: number): Record<string, unknown> | undefined {
  const value = toJsonValue(input, '');
  if (!isPlainObject(value)) return undefined;
  const fitted = fitObject(value, maxBytes, 0);
  return fitted === undefined ? undefined : (fitted.value as Record<string, unknown>);
}

function fit(raw: unknown, key: string, budget: number, depth: number): Fitted | undefined | typeof OMIT {
  const value = toJsonValue(raw, key);
  switch (typeof value) {
    case 'string':
      return cutString(value, budget);
    case 'number':
      return sized(Number.isFinite(value) ? value : null, Number.isFinite(value) ? String(value).length : 4, budget);
    case 'boolean':
      return sized(value, value ? 4 : 5, budget);
    case 'undefined':
    case 'function':
    case 'symbol':
      return OMIT;
  }
  if (value === null) return sized(null, 4, budget);
  if (depth >= MAX_DEPTH) return undefined;
  if (Array.isArray(value)) return fitArray(value, budget, depth + 1);
  return fitObject(value as Record<string, unknown>, budget, depth + 1);
}

function sized(value: unknown, size: number, budget: number): Fitted | undefined {
  return size <= budget ? { value, size, cut: false } : undefined;
}

/** Mirrors JSON.stringify's `toJSON` hook, so sizes match what will be sent. */
function toJsonValue(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return value;
}

function fitArray(items: readonly unknown[], budget: number, depth: number): Fitted | undefined {
  if (budget < 2) return undefined;
  const out: unknown[] = [];
  let used = 2;
  let cut = false;
  // Keep a prefix: removing middle elements would shift the meaning of later ones.
  for (let i = 0; i < items.length; i++) {
    const comma = out.length > 0 ? 1 : 0;
    const fitted = fit(items[i], String(i), budget - used - comma, depth);
    const element = fitted === OMIT ? { value: null, size: 4, cut: false } : fitted;
    if (element === undefined || element.size > budget - used - comma) {
      cut = true;
      break;
    }
    out.push(element.value);
    used += comma + element.size;
    if (element.cut) {
      cut = true;
      break; // the element was cut, so the budget is spent
    }
  }
  // An emptied container says nothing; dropping it leaves room for later members.
  if (out.length === 0 && items.length > 0) return undefined;
  return { value: cut || out.some((v, i) => v !== items[i]) ? out : items, size: used, cut };
}

function fitObject(record: Readonly<Record<string, unknown>>, budget: number, depth: number): Fitted | undefined {
  if (budget < 2) return undefined;
  const out: Record<string, unknown> = {};
  let used = 2;
  let count = 0;
  let cut = false;
  let same = true;
  const keys = Object.keys(record);
  for (const key of keys) {
    const comma = count > 0 ? 1 : 0;
    const keyCost = stringCost(key) + 1;
    const room = budget - used - comma - keyCost;
    const fitted = room < 1 ? undefined : fit(record[key], key, room, depth);
    if (fitted === OMIT) {
      same = false;
      continue;
    }
    if (fitted === undefined) {
      cut = true;
      continue; // a later, smaller member may still fit
    }
    setMember(out, key, fitted.value);
    used += comma + keyCost + fitted.size;
    count++;
    cut ||= fitted.cut;
    same &&= fitted.value === record[key];
  }
  if (count === 0 && keys.length > 0) return undefined;
  return { value: same && !cut ? record : out, size: used, cut };
}

/** Serialized size of a string, including its quotes. */
function stringCost(text: string): number {
  const r = cutString(text, Number.MAX_SAFE_INTEGER);
  return r === undefined ? 0 : r.size;
}

/** The longest prefix of `text` whose JSON string form fits `budget` bytes. */
function cutString(text: string, budget: number): Fitted | undefined {
  if (budget < 2) return undefined;
  let used = 2;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    let width = 1;
    let cost: number;
    if (unit === 0x22 || unit === 0x5c) cost = 2;
    else if (unit < 0x20) cost = unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
    else if (unit < 0x80) cost = 1;
    else if (unit < 0x800) cost = 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(end + 1))) {
      cost = 4;
      width = 2;
    } else if (unit >= 0xd800 && unit <= 0xdfff) cost = 6; // a lone surrogate serializes as \udxxx
    else cost = 3;
    if (used + cost > budget) break;
    used += cost;
    end += width;
  }
  const cut = end < text.length;
  return { value: cut ? text.slice(0, end) : text, size: used, cut };
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
