import qs from 'qs';

/**
 * Rails-style query strings (`products[7]=2`, `ids[]=a&ids[]=b`) with limits that keep a hostile
 * query from building deep or huge structures: an index above the array limit becomes an object key.
 */
export function parseQueryString(query: string): Record<string, unknown> {
  return qs.parse(query, { depth: 3, arrayLimit: 100, parameterLimit: 200, allowPrototypes: false, strictDepth: false });
}
