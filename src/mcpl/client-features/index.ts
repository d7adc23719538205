/** Requests servers make of their client: the public types and the wiring into a connection. */
export type { ServerRequestContext, ServerRequestHandlers, CallOwner } from './types.ts';
export { applyElicitationDefaults } from './defaults.ts';
export { clientCapabilities, installServerRequestHandlers } from './install.ts';
export type { OpenServerCall } from './attribution.ts';
