import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Sql } from '../../../db/client.js';
import { GEO_SYSTEMS, listGeoUnits } from '../../../domain/geography/index.js';
import { READ_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const GeoSystemSchema = z.enum(GEO_SYSTEMS).describe('`old`: province, district, ward (before 1 July 2025); `new`: province, ward');

const GeoUnitSchema = z
  .object({
    id: z.uuid().describe('Use as provinceUnitId, districtUnitId or wardUnitId; the same on every installation'),
    system: GeoSystemSchema,
    level: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe('1 province or city, 2 district (only in old), 3 ward or commune'),
    parentId: z.uuid().nullable().describe('null at province level'),
    name: z.string().describe('Official name with its type, for example "Tỉnh Lào Cai", "Quận 1", "Phường Bến Nghé"'),
  })
  .meta({ id: 'GeoUnit' });

const GeoUnitsQuery = z.object({
  system: GeoSystemSchema,
  parentId: z.uuid().optional().describe('Absent: the provinces; present: the children of that unit'),
  search: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Keeps the names containing it, ignoring case and accents ("ha noi" finds "Hà Nội")'),
});

/** `GET /geo/units`: one tier of the administrative tree of one boundary system. */
export const geographyRoutes: FastifyPluginAsyncZod<{ sql: Sql }> = async (app, { sql }) => {
  app.get(
    '/geo/units',
    {
      schema: {
        operationId: 'listGeoUnits',
        summary: 'Administrative units of Vietnam, one tier at a time',
        description:
          'Not paginated (at most a few hundred rows per tier), sorted by name. A parentId that does not exist or belongs to the other system is 404.',
        tags: ['Geography'],
        querystring: GeoUnitsQuery,
        response: { 200: z.object({ data: z.array(GeoUnitSchema) }), ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    async (request) => ({ data: await listGeoUnits(sql, request.query) }),
  );
};
