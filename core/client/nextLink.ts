/** @module Finds the `rel="next"` target in a Link header (RFC 8288). */

/**
 * The URL reference of the link whose relation types include `next`, or `undefined`.
 * Handles several links in one header and `rel` written quoted, unquoted or with several
 * relation types; URLs are the service's own, so a `>` or `,` inside one is not expected.
 */
export const nextLink = (header: string | null): string | undefined => {
  if (header === null) return undefined;
  for (const link of header.split(/,\s*(?=<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(link);
    if (!match) continue;
    for (const parameter of match[2]!.split(';')) {
      const rel = /^\s*rel\s*=\s*"?([^"]*)"?\s*$/i.exec(parameter);
      if (rel && rel[1]!.toLowerCase().split(/\s+/).includes('next')) return match[1];
    }
  }
  return undefined;
};
