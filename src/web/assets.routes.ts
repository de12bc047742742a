import { defineRoute, type Route } from '../http/route.js';
import { ASSET_PREFIX, type Assets } from './assets.js';

const NOT_FOUND = { status: 404, body: 'not found\n', type: 'text/plain; charset=utf-8' } as const;

/**
 * GET /assets/<version>/<name>: the pages' scripts and stylesheet. A URL names one content for
 * ever (the version is a hash of all files), so it may be cached for a year.
 */
export function assetRoutes(assets: Assets): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: `${ASSET_PREFIX}/:version/:name`,
      api: 'identity',
      handler: ({ params }) => {
        const asset = params.version === assets.version ? assets.get(params.name ?? '') : undefined;
        if (!asset) return { ...NOT_FOUND, headers: { 'Cache-Control': 'no-store' } };
        return {
          body: asset.body,
          type: asset.type,
          headers: {
            'Cache-Control': 'public, max-age=31536000, immutable',
            'X-Content-Type-Options': 'nosniff',
          },
        };
      },
    }),
  ];
}
