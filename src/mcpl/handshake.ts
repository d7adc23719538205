/**
 * Pure policy-exchange logic: what a server advertised, and what the host grants it.
 * Advertisement is an input to the grant, never an authorization (RFC-007 §4.2): a path is
 * effective only when the operator's policy grants it AND the server advertised it.
 */
import { computeLifecycleGrant, type OperatorPolicy } from '../lifecycle/grants.ts';
import { validateFeatureSets } from './policy.ts';
import { MCPL_CAPABILITY_PATHS } from './capabilities.ts';

/** Capability paths this host implements and can therefore grant. */
export const HOST_PATHS = ['tools', 'toolLifecycle.observe', 'toolLifecycle.inputs'] as const;

export interface Advertisement {
  paths: Set<string>;
  featureSets: unknown;
  mcplVersion?: string;
}

/** Reads `capabilities` (from `initialize`) into capability paths. */
export function readAdvertisement(capabilities: Record<string, unknown> | undefined): Advertisement {
  const paths = new Set<string>();
  if (capabilities?.tools) paths.add('tools');
  const experimental = capabilities?.experimental as Record<string, unknown> | undefined;
  const mcpl = experimental?.mcpl as Record<string, unknown> | undefined;
  const lifecycle = mcpl?.toolLifecycle;
  if (lifecycle === true) {
    paths.add('toolLifecycle.observe');
    paths.add('toolLifecycle.inputs');
  } else if (lifecycle && typeof lifecycle === 'object') {
    const leaves = lifecycle as Record<string, unknown>;
    if (leaves.observe === true) paths.add('toolLifecycle.observe');
    if (leaves.inputs === true) paths.add('toolLifecycle.inputs');
  }
  return {
    paths,
    featureSets: mcpl?.featureSets,
    ...(typeof mcpl?.version === 'string' ? { mcplVersion: mcpl.version } : {}),
  };
}

export interface PolicyExchange {
  effectiveCapabilities: string[];
  deniedCapabilities: string[];
  enabled: string[];
  disabled: string[];
  lifecycle: ReturnType<typeof computeLifecycleGrant>;
  diagnostics: { code: string; message: string }[];
}

/** Derives the `featureSets/update` params and the lifecycle grant for one connection. */
export function derivePolicyExchange(policy: OperatorPolicy, advertisement: Advertisement): PolicyExchange {
  const computed = computeLifecycleGrant(policy);
  const policyPaths = new Set(computed.paths);
  const effective = HOST_PATHS.filter((p) => policyPaths.has(p) && advertisement.paths.has(p));
  const denied = [...advertisement.paths].filter((p) => !effective.includes(p as (typeof HOST_PATHS)[number]));
  const diagnostics: { code: string; message: string }[] = computed.diagnostics.map((d) => ({ code: d.code, message: `${d.code}: ${d.message}` }));
  for (const path of denied) {
    if (path.startsWith('toolLifecycle.')) {
      diagnostics.push({ code: 'advertised-denied', message: `advertised ${path} denied by operator policy (deny by default)` });
    }
  }
  const lifecycle = {
    ...computed,
    observe: effective.includes('toolLifecycle.observe') ? computed.observe : null,
    inputs: effective.includes('toolLifecycle.inputs') && effective.includes('toolLifecycle.observe') ? computed.inputs : null,
  };
  const sets = validateFeatureSets(advertisement.featureSets, MCPL_CAPABILITY_PATHS, new Set(effective));
  const enabled = [...sets.enabled];
  const disabled: string[] = [];
  for (const item of sets.disabled) {
    disabled.push(item.name);
    const detail = [...item.invalid, ...(item.missing ?? [])].join(', ');
    diagnostics.push({ code: 'feature-disabled', message: `${item.name} disabled: ${item.reason}${detail ? ` (${detail})` : ''}` });
  }
  return { effectiveCapabilities: [...effective], deniedCapabilities: denied, enabled, disabled, lifecycle, diagnostics };
}
