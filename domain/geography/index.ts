/**
 * Geography: the Vietnamese administrative units of both systems (geo_units, platform reference data
 * loaded by the bootstrap) and the address shape customers and orders store. Other modules import
 * only this file.
 */

export { normalizeAddress, type Address, type AddressInput } from './addresses.js';
export { isGeographyLoaded, loadGeography } from './geo-units-loader.js';
export { GEO_SYSTEMS, listGeoUnits } from './geography.js';
