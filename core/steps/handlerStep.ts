/** @module The last step: the route's handler answers. */
import type { RouteContext } from '../routing/RouteContext.js';
import type { Step } from './composeSteps.js';

/**
 * The step that hands the request to its route's handler, with what the steps before it
 * learnt; the route rules have made sure there is one for the method.
 */
export const handlerStep: Step = (state) => {
  const { request, search, base, respond, headers, caller, match, method, time } = state;
  const handler = match!.route.methods[method as 'GET' | 'POST']!;
  const context: RouteContext = { request, search, base, respond, headers, time };
  if (caller !== undefined) context.caller = caller;
  if (match!.petId !== undefined) context.petId = match!.petId;
  if (match!.asset !== undefined) context.asset = match!.asset;
  return handler(context);
};
