/**
 * @module Request bodies whose optional fields read as optional to code generators: each
 * default is said in words instead of as JSON Schema's `default`.
 */

/** A JSON Schema object, as `toJsonSchema` gives it. */
type ObjectSchema = { properties?: Record<string, unknown>; required?: string[] };

/**
 * Moves the `default` of every optional property of a request body into its description.
 * openapi-typescript (7, default settings) and others read a property with a `default` as
 * always present, which is true of an answer but not of a request: the type they make would
 * refuse a create that leaves the field out (openapi-ts/openapi-typescript#1741, #2012).
 */
export const describeDefaults = <Schema extends ObjectSchema>(schema: Schema): Schema => {
  const properties = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    if (typeof property !== 'object' || property === null || !('default' in property) || schema.required?.includes(name))
      return [name, property];
    const { default: value, description, ...rest } = property as Record<string, unknown>;
    const said = `Optional; ${JSON.stringify(value)} when left out.`;
    return [name, { ...rest, description: typeof description === 'string' ? `${description} ${said}` : said }];
  });
  return { ...schema, properties: Object.fromEntries(properties) };
};
