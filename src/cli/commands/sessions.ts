import type { Command } from 'commander';
import {
  disconnectSession,
  disconnectSessionKeepGrant,
  listSessions,
  presentDisconnect,
  presentSession,
  type ListedSessionRow,
  cliActor,
} from '../../wifi/index.js';
import { SESSION_LIST } from '../../wifi/admin.routes.js';
import { contextOf, withApp } from '../context.js';
import { listCommand } from '../list-options.js';
import { formatAnswers } from '../answers.js';
import { formatRecord, type Column } from '../output.js';

const COLUMNS: readonly Column<ListedSessionRow>[] = [
  ['id', (s) => s.id],
  ['nas_id', (s) => s.radius_nas_id],
  ['username', (s) => s.username],
  ['mac', (s) => s.mac],
  ['ip', (s) => s.framed_ip],
  ['started', (s) => s.started_at],
  ['stopped', (s) => s.stopped_at],
  ['cause', (s) => s.terminate_cause],
  ['in_bytes', (s) => s.input_octets],
  ['out_bytes', (s) => s.output_octets],
];

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description('RADIUS sessions reported by the routers');

  listCommand(sessions, {
    description:
      'List RADIUS sessions, newest first: the newest 200, or a page of those matching the options',
    spec: SESSION_LIST,
    read: (app, filter) => listSessions(app.deps, undefined, filter),
    present: presentSession,
    columns: COLUMNS,
    none: 'no sessions',
    searched: 'username, MAC, IP, router name or NAS id',
  });

  sessions
    .command('disconnect')
    .description("Revoke the session's access grant and send Disconnect-Requests to its routers")
    .argument('<id>', 'session id (from sessions list)')
    .option('--reason <text>', 'recorded as the revocation reason', 'staff disconnect')
    .option('--keep-grant', "only disconnect: keep the guest's paid time, so they can sign in again")
    .action(async (id: string, flags: { reason: string; keepGrant?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const end = flags.keepGrant ? disconnectSessionKeepGrant : disconnectSession;
      const reason =
        flags.keepGrant && flags.reason === 'staff disconnect'
          ? 'staff disconnect (paid time kept)'
          : flags.reason;
      const doc = presentDisconnect(await withApp(ctx, (app) => end(app.deps, id, reason, null, cliActor())));
      ctx.out.result(doc, () =>
        [
          formatRecord([
            ['session', doc.session_id],
            ['grant', doc.grant_id],
            [
              'grant revoked',
              doc.grant_revoked ? 'yes' : flags.keepGrant ? 'no (kept)' : 'no (the session has no grant)',
            ],
            ['routers', doc.disconnect.status],
          ]),
          formatAnswers(doc.disconnect.sessions, 'no live sessions to disconnect'),
        ].join('\n'),
      );
    });
}
