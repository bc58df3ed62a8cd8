/**
 * @module Preloaded (`--import`) into a CLI under test: makes `prom-client` impossible to
 * find, as in an application that did not install the optional peer dependency.
 */
import { register } from 'node:module';

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier === 'prom-client') {
    throw Object.assign(new Error("Cannot find package 'prom-client'"), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
