import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { InfraError, InputError } from '../../errors.ts';
import { startAgent } from '../../agent/server.ts';
import { parseAgentAddress } from '../../agent/client.ts';
import { AGENT_TOKEN_ENV } from '../../runner/placement.ts';
import { onInterrupt } from '../../runtime/cleanup.ts';

interface AgentFlags {
  listen: string;
  workDir: string;
  tlsCert?: string;
  tlsKey?: string;
  runnerTimeout: string;
}

/** `convoy agent`: run a load host's workers for runners elsewhere (docs/agents.md). */
export function register(program: Command): void {
  program
    .command('agent')
    .description(`run workers on this host for a runner elsewhere (\`convoy run --agent host:port\`); the shared token comes from ${AGENT_TOKEN_ENV}`)
    .option('--listen <host:port>', 'the address to listen on', '0.0.0.0:7411')
    .option('--work-dir <dir>', 'where each run\'s folder goes (histories, logs, the consumers\' store)', join(tmpdir(), 'convoy-agent'))
    .option('--tls-cert <file>', 'TLS: this agent\'s certificate (PEM); with --tls-key')
    .option('--tls-key <file>', 'TLS: its private key (PEM)')
    .option('--runner-timeout <ms>', 'a run whose runner is unheard this long is stopped, its workers killed', '15000')
    .action(async (o: AgentFlags) => {
      const token = process.env[AGENT_TOKEN_ENV];
      if (!token) throw new InputError(`agent: set ${AGENT_TOKEN_ENV} to the token runners will present`);
      const at = parseAgentAddress(o.listen, '--listen', true);
      if (Boolean(o.tlsCert) !== Boolean(o.tlsKey)) throw new InputError('agent: --tls-cert and --tls-key go together');
      const runnerTimeoutMs = Number(o.runnerTimeout);
      if (!Number.isFinite(runnerTimeoutMs) || runnerTimeoutMs < 1_000) throw new InputError(`--runner-timeout: expected milliseconds ≥ 1000, got "${o.runnerTimeout}"`);
      const tls = o.tlsCert ? { cert: readFileSync(o.tlsCert, 'utf8'), key: readFileSync(o.tlsKey!, 'utf8') } : undefined;
      const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      const agent = await startAgent({ host: at.host, port: at.port, token, workDir: resolve(o.workDir), tls, runnerTimeoutMs, log }).catch((err: NodeJS.ErrnoException) => {
        throw new InfraError(`agent: cannot listen on ${o.listen}: ${err.code ?? err.message}`);
      });
      log(`convoy agent listening on ${agent.host}:${agent.port}${tls ? ' (TLS)' : ''}`);
      // Runs until stopped; its runs' workers go with it.
      await new Promise<void>((done) => {
        const off = onInterrupt(() => {
          off();
          void agent.close().then(done);
        });
      });
    });
}
