import type { CoreDeps } from '../deps.js';
import { defineRoute, type Route } from '../http/route.js';
import { requireSession } from '../identity/index.js';
import { clientCreateBody, clientPatchBody, projectNameBody } from './console.schema.js';
import {
  clientStats,
  createClient,
  deleteClient,
  getClient,
  listClients,
  publicClient,
  rotateClientSecret,
  updateClient,
} from './clients.js';
import type { ClientGrantStats } from './ports.js';
import {
  archiveProject,
  auditTrail,
  createProject,
  getProject,
  listProjects,
  renameProject,
} from './projects.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'config' | 'log'> & { grantStats: ClientGrantStats };

const P = '/console/projects/:projectId';
const C = `${P}/clients/:clientId`;

/** identity-service.md §4.8 (every route needs a session) and GET /oauth/clients/{client_id}. */
export function consoleRoutes(deps: Deps): Route[] {
  const session = requireSession(deps);
  const base = { api: 'identity' as const, auth: session };
  const actor = (principal: { user: { id: string } }, ip: string) => ({ userId: principal.user.id, ip });
  const ids = (params: Readonly<Record<string, string>>) => ({
    projectId: params.projectId ?? '',
    clientId: params.clientId ?? '',
  });
  return [
    defineRoute({
      ...base,
      method: 'POST',
      path: '/console/projects',
      limiter: 'console-project-create',
      body: { kind: 'json', parse: projectNameBody },
      handler: async ({ principal, body, ip }) => ({
        status: 201,
        data: await createProject(deps, actor(principal, ip), body.name),
      }),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: '/console/projects',
      handler: async ({ principal }) => ({ data: await listProjects(deps, principal.user.id) }),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: P,
      handler: async ({ principal, params }) => ({
        data: await getProject(deps, principal.user.id, ids(params).projectId),
      }),
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: P,
      body: { kind: 'json', parse: projectNameBody },
      handler: async ({ principal, params, body, ip }) => {
        await renameProject(deps, actor(principal, ip), ids(params).projectId, body.name);
        return { message: 'project renamed' };
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: P,
      handler: async ({ principal, params, ip }) => {
        const { alreadyArchived } = await archiveProject(deps, actor(principal, ip), ids(params).projectId);
        return {
          message: alreadyArchived
            ? 'project already archived'
            : 'project archived — all its clients are disabled',
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: `${P}/audit-logs`,
      handler: async ({ principal, params }) => ({
        data: await auditTrail(deps, principal.user.id, ids(params).projectId),
      }),
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: `${P}/clients`,
      limiter: 'console-client-create',
      body: { kind: 'json', parse: clientCreateBody },
      handler: async ({ principal, params, body, ip }) => ({
        status: 201,
        data: await createClient(deps, actor(principal, ip), ids(params).projectId, body),
        headers: { 'Cache-Control': 'no-store' },
      }),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: `${P}/clients`,
      handler: async ({ principal, params }) => ({
        data: await listClients(deps, principal.user.id, ids(params).projectId),
      }),
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: C,
      handler: async ({ principal, params }) => {
        const { projectId, clientId } = ids(params);
        return { data: await getClient(deps, principal.user.id, projectId, clientId) };
      },
    }),
    defineRoute({
      ...base,
      method: 'PATCH',
      path: C,
      body: { kind: 'json', parse: clientPatchBody },
      handler: async ({ principal, params, body, ip }) => {
        const { projectId, clientId } = ids(params);
        return { data: await updateClient(deps, actor(principal, ip), projectId, clientId, body) };
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      path: `${C}/rotate-secret`,
      handler: async ({ principal, params, ip }) => {
        const { projectId, clientId } = ids(params);
        return {
          data: await rotateClientSecret(deps, actor(principal, ip), projectId, clientId),
          headers: { 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      path: `${C}/stats`,
      handler: async ({ principal, params }) => {
        const { projectId, clientId } = ids(params);
        return { data: await clientStats(deps, principal.user.id, projectId, clientId) };
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      path: C,
      handler: async ({ principal, params, ip }) => {
        const { projectId, clientId } = ids(params);
        await deleteClient(deps, actor(principal, ip), projectId, clientId);
        return { message: 'client deleted — all its tokens and grants are revoked' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/oauth/clients/:clientId',
      api: 'identity',
      handler: async ({ params }) => ({ data: await publicClient(deps, params.clientId ?? '') }),
    }),
  ];
}
