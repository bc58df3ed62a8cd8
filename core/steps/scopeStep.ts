/** @module The step that lets a key do only what its scopes allow. */

import { AnimalStoreError } from '../AnimalStoreError.js';
import { SCOPES } from '../auth/apiKeys.js';
import { hasEveryScope } from '../auth/createBearerCheck.js';
import type { Step } from './composeSteps.js';

/** What each scope lets a key do, for messages. */
const DOING = { read: 'read the catalogue', create: 'create animals', sync: 'sync', every: 'see the fleet' } as const;

/**
 * Creates the step that refuses (403 `forbidden`, naming the missing scope) a request its
 * key's scopes do not cover. It comes after authentication and the route rules, so only a
 * valid key on a real route and method learns what it lacks.
 */
export const scopeStep = (): Step => (state, next) => {
  const { caller, match, method } = state;
  const needed = caller === undefined || match === undefined ? undefined : match.route.scopes?.[method as 'GET' | 'POST'];
  if (needed === undefined || caller === undefined) return next();
  const allowed = needed === 'every' ? hasEveryScope(caller) : caller.scopes.includes(needed);
  if (allowed) return next();
  const missing = needed === 'every' ? SCOPES.filter((scope) => !caller.scopes.includes(scope)) : [needed];
  throw new AnimalStoreError(
    'forbidden',
    `This API key may not ${DOING[needed]}: it lacks the scope${missing.length === 1 ? '' : 's'} ${missing.join(', ')} (it has ${caller.scopes.join(', ')}).`,
  );
};
