/**
 * Pure policy-exchange logic: what a server advertised, and what the host grants it.
 * Advertisement is an input to the grant, never an authorization (RFC-007 §4.2): a path is
 * effective only when the operator's policy grants it AND the server advertised it.
 */
import { computeLifecycleGrant, type OperatorPolicy } from '../lifecycle/grants.ts';
import { validateFeatureSets } from './policy.ts';
import { advertisedPaths, MCPL_CAPABILITY_PATHS } from './capabilities.ts';

/** Capability paths this host implements and can therefore grant. */
export const HOST_PATHS = ['tools', 'toolLifecycle.observe', 'toolLifecycle.inputs'] as const;

export interface Advertisement {
  paths: Set<string>;
  featureSets: unknown;
  mcplVersion?: string;
}

/** Reads `capabilities` (from `initialize`) into the capability paths this host could grant. */
export function readAdvertisement(capabilities: Record<string, unknown> | undefined): Advertisement {
  const experimental = capabilities?.experimental as Record<string, unknown> | undefined;
  const mcpl = experimental?.mcpl as Record<string, unknown> | undefined;
  const paths = advertisedPaths(mcpl, HOST_PATHS.filter((p) => p !== 'tools'));
  // `tools` is plain MCP, advertised outside experimental.mcpl.
  if (capabilities?.tools) paths.add('tools');
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
  // Granted only where the policy names a path this host implements AND the server advertised it.
  const lifecycle = computeLifecycleGrant(policy, { advertised: advertisement.paths, knownPaths: HOST_PATHS });
  const effective = lifecycle.paths;
  const denied = [...advertisement.paths].filter((p) => !effective.includes(p));
  const diagnostics: { code: string; message: string }[] = lifecycle.diagnostics.map((d) => ({ code: d.code, message: `${d.code}: ${d.message}` }));
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
