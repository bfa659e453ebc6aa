import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { eventTypesProblem } from './endpoints.service.ts';
import { isLoopbackUrl } from './listen-sessions.ts';
import { NotificationUsageError } from './notifications.cli.ts';
import { callService, ServiceCallError, type ServiceTarget } from './operator-client.ts';

export const LISTEN_USAGE =
  'usage: checkout listen --account SLUG --forward-to http://localhost:PORT/PATH [--events TYPE,TYPE…] [--service-url URL]';

/** How often the CLI renews its session and reads the attempts made since: well inside the 30 s lease. */
const POLL_MS = 1_000;

type Attempt = {
  id: number;
  type: string;
  event_id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
};

/**
 * `checkout listen`: opens a listen session on the running service, prints its signing secret, then one line
 * per delivery attempt until `stop` aborts, when the session is ended so nothing more is sent.
 */
export async function runListen(
  args: string[],
  target: ServiceTarget,
  stop: AbortSignal,
  print: (line: string) => void,
  clock: () => Date,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      account: { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      'service-url': { type: 'string' },
    },
  });
  const forwardTo = values['forward-to'];
  if (!values.account || !forwardTo) throw new NotificationUsageError(LISTEN_USAGE);
  if (!URL.canParse(forwardTo) || !isLoopbackUrl(forwardTo))
    throw new NotificationUsageError(`--forward-to must be an http URL on this machine (localhost)\n${LISTEN_USAGE}`);
  const events = (values.events ?? '')
    .split(',')
    .map((type) => type.trim())
    .filter((type) => type !== '' && type !== '*');
  const typesProblem = eventTypesProblem(events);
  if (typesProblem) throw new NotificationUsageError(typesProblem);
  const service = { ...target, serviceUrl: values['service-url'] ?? target.serviceUrl };

  const session = await callService<{ id: string; secret: string }>(service, 'POST', '/cli/v1/listen_sessions', {
    body: { account: values.account, forward_to: forwardTo, events },
  });
  print(`Ready! Your signing secret for this session is ${session.secret}`);
  print(
    `Forwarding ${events.length ? events.join(', ') : 'every event'} of ${values.account} to ${forwardTo} (Ctrl-C to stop)`,
  );
  let after = 0;
  try {
    while (!stop.aborted) {
      const renewed = await callService<{ attempts: Attempt[] }>(
        service,
        'POST',
        `/cli/v1/listen_sessions/${session.id}/lease`,
        { body: { after_attempt: after } },
      );
      for (const attempt of renewed.attempts) {
        print(deliveryLine(attempt, clock()));
        after = attempt.id;
      }
      await sleep(POLL_MS, undefined, { signal: stop }).catch(() => undefined);
    }
  } finally {
    await callService(service, 'DELETE', `/cli/v1/listen_sessions/${session.id}`).catch((error: unknown) => {
      // A session the service no longer knows is ended already; its lease lapses in any case.
      if (!(error instanceof ServiceCallError && error.status === 404)) throw error;
    });
    print('Stopped: the listen session has ended.');
  }
}

function deliveryLine(attempt: Attempt, printedAt: Date): string {
  const outcome = attempt.status_code === null ? `failed: ${attempt.error ?? 'no answer'}` : `[${attempt.status_code}]`;
  const retry = attempt.attempt > 1 ? ` (attempt ${attempt.attempt})` : '';
  return `${printedAt.toISOString()}  ${attempt.type}  ${attempt.event_id}  ${outcome}${retry}`;
}
