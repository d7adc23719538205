/** The transport a server configuration asks for: spawned over stdio, or remote over Streamable HTTP. */
import { childEnvironment, isHttpConfig, type ServerConfig } from '../config.ts';
import { HttpTransport } from './http.ts';
import { StdioTransport } from './stdio.ts';
import type { HostTransport } from './types.ts';

export function createTransport(config: ServerConfig): HostTransport {
  if (isHttpConfig(config)) {
    return new HttpTransport({
      url: config.url,
      ...(config.headers ? { headers: config.headers } : {}),
      ...(config.authProvider ? { authProvider: config.authProvider } : {}),
      ...(config.maxMessageBytes !== undefined ? { maxMessageBytes: config.maxMessageBytes } : {}),
    });
  }
  return new StdioTransport({
    command: config.command,
    args: config.args,
    env: childEnvironment(config),
    cwd: config.cwd,
    ...(config.maxMessageBytes !== undefined ? { maxLineBytes: config.maxMessageBytes } : {}),
  });
}
