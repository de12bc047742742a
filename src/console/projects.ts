import type { CoreDeps } from '../deps.js';
import type { Db } from '../db/index.js';
import { uuid } from '../lib/crypto.js';
import { isoNow } from '../lib/time.js';
import { listAudit } from './audit.store.js';
import { audit, AUDIT_SHOWN, type Actor } from './audit.js';
import { disableProjectClients } from './clients.store.js';
import { consoleErrors } from './errors.js';
import { presentAudit, presentProject } from './present.js';
import {
  archiveProject as markArchived,
  countActiveProjects,
  findOwnedProject,
  insertProject,
  listOwnedProjects,
  renameProject as storeRename,
  slugsLike,
  type ProjectRow,
} from './projects.store.js';
import { checkName } from './rules.js';
import { slugCandidate, slugify } from './slug.js';

type Deps = Pick<CoreDeps, 'db' | 'clock' | 'log'>;

/** Active (not archived) projects an owner may have. */
export const PROJECTS_PER_OWNER = 25;

/** The owner's project or 404 `project not found` (also for another owner's project). */
export async function ownedProject(db: Db, ownerId: string, projectId: string): Promise<ProjectRow> {
  const project = await findOwnedProject(db, ownerId, projectId);
  if (!project) throw consoleErrors.projectNotFound();
  return project;
}

/** An owned project that is not archived (403 `this project is archived` otherwise). */
export async function writableProject(db: Db, ownerId: string, projectId: string): Promise<ProjectRow> {
  const project = await ownedProject(db, ownerId, projectId);
  if (project.archived === 1) throw consoleErrors.projectArchived();
  return project;
}

async function uniqueSlug(db: Db, name: string): Promise<string> {
  const base = slugify(name);
  const taken = await slugsLike(db, base.slice(0, 30));
  for (let n = 1; ; n++) {
    const candidate = slugCandidate(base, n);
    if (!taken.has(candidate)) return candidate;
  }
}

export async function createProject(deps: Deps, actor: Actor, rawName: string) {
  const name = checkName(rawName);
  const project = await deps.db.transaction().execute(async (tx) => {
    if ((await countActiveProjects(tx, actor.userId)) >= PROJECTS_PER_OWNER)
      throw consoleErrors.projectQuota();
    const now = isoNow(deps.clock);
    const row: ProjectRow = {
      id: uuid(),
      owner_id: actor.userId,
      name,
      slug: await uniqueSlug(tx, name),
      archived: 0,
      created_at: now,
      updated_at: now,
    };
    await insertProject(tx, row);
    await audit(tx, deps.clock, {
      projectId: row.id,
      actor,
      action: 'project.created',
      target: { type: 'project', id: row.id },
      metadata: { name, slug: row.slug },
    });
    return row;
  });
  return presentProject(project);
}

export async function listProjects(deps: Pick<CoreDeps, 'db'>, ownerId: string) {
  return (await listOwnedProjects(deps.db, ownerId)).map(presentProject);
}

export async function getProject(deps: Pick<CoreDeps, 'db'>, ownerId: string, projectId: string) {
  return presentProject(await ownedProject(deps.db, ownerId, projectId));
}

export async function renameProject(
  deps: Deps,
  actor: Actor,
  projectId: string,
  rawName: string,
): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const project = await writableProject(tx, actor.userId, projectId);
    const name = checkName(rawName);
    await storeRename(tx, projectId, name, isoNow(deps.clock));
    await audit(tx, deps.clock, {
      projectId,
      actor,
      action: 'project.renamed',
      target: { type: 'project', id: projectId },
      metadata: { from: project.name, to: name },
    });
  });
}

/** DELETE project: archived, and all its clients disabled, in one transaction. */
export async function archiveProject(
  deps: Deps,
  actor: Actor,
  projectId: string,
): Promise<{ alreadyArchived: boolean }> {
  return deps.db.transaction().execute(async (tx) => {
    const project = await ownedProject(tx, actor.userId, projectId);
    if (project.archived === 1) return { alreadyArchived: true };
    const now = isoNow(deps.clock);
    await markArchived(tx, projectId, now);
    const disabled = await disableProjectClients(tx, projectId, now);
    await audit(tx, deps.clock, {
      projectId,
      actor,
      action: 'project.archived',
      target: { type: 'project', id: projectId },
      metadata: { clients_disabled: Number(disabled.numUpdatedRows) },
    });
    return { alreadyArchived: false };
  });
}

export async function auditTrail(deps: Pick<CoreDeps, 'db'>, ownerId: string, projectId: string) {
  await ownedProject(deps.db, ownerId, projectId);
  return (await listAudit(deps.db, projectId, AUDIT_SHOWN)).map(presentAudit);
}
