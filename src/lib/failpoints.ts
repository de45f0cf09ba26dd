/**
 * Failpoints: named places in the code where a test can make the process misbehave on purpose
 * (as in FreeBSD's fail(9) and TiKV's fail-rs). Configured only by TRIBUTARY_FAILPOINTS, e.g.
 * `create.after_connector=kill`; with the variable unset every failpoint is a no-op.
 *
 * Actions: `kill` (SIGKILL this process: the crash tests' "process died here"), `throw`.
 */
export type FailpointAction = 'kill' | 'throw';

export interface Failpoints {
  hit(name: string): void;
}

export const noFailpoints: Failpoints = { hit() {} };

export function parseFailpoints(spec: string): Failpoints {
  const actions = new Map<string, FailpointAction>();
  for (const part of spec
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const [name, action] = part.split('=').map((s) => s.trim());
    if (name === undefined || name === '' || (action !== 'kill' && action !== 'throw')) {
      throw new Error(`bad TRIBUTARY_FAILPOINTS entry "${part}" (expected name=kill|throw)`);
    }
    actions.set(name, action);
  }
  if (actions.size === 0) return noFailpoints;
  return {
    hit(name) {
      const action = actions.get(name);
      if (action === 'kill') process.kill(process.pid, 'SIGKILL');
      if (action === 'throw') throw new Error(`failpoint ${name}`);
    },
  };
}
