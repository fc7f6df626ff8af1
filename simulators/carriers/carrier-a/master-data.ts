import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { describeIssues } from '../shared/errors.js';
import type { EndpointFactory, Identified } from '../shared/simulator.js';
import { carrierADistricts, carrierAProvinces } from './areas.js';
import { carrierANewProvinces } from './new-areas.js';
import { failure, success } from './payloads.js';

const base = '/shiip/public-api/master-data';
const v3 = '/shiip/public-api/v3/master-data';

/** GHN takes its ids in the query or in a JSON body, on GET or POST alike. */
const idOf = (name: string) => z.object({ [name]: z.coerce.number().int().positive() });

/** The new master data is paged: `offset` from 0, `limit` (50 unless given, at most 500). */
const page = z.object({ offset: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).default(50) });
const slice = <T>(items: readonly T[], { offset, limit }: z.infer<typeof page>) => items.slice(offset, offset + Math.min(limit, 500));

function parameters(request: FastifyRequest): Record<string, unknown> {
  return { ...(request.query as object), ...(typeof request.body === 'object' ? request.body : {}) };
}

/**
 * GHN's master data, as integrators read it to turn an address's names into the `to_district_id`
 * and `to_ward_code` of a create: provinces, the districts of a province, the wards of a district;
 * and, for the 2025 layout, the new provinces and their wards (`/v3/master-data`), whose names a
 * create with `is_new_to_address` takes. Only the `Token` header is needed (no `ShopId`).
 */
export function registerCarrierAMasterData<Caller>(
  api: FastifyInstance,
  endpoint: EndpointFactory<'master-data'>,
  identify: (request: FastifyRequest) => Identified<Caller>,
): void {
  const route = (path: string, handler: Parameters<typeof endpoint<Caller>>[2]) => {
    api.route({
      method: ['GET', 'POST'],
      url: path.startsWith('/') ? path : `${base}/${path}`,
      handler: endpoint('master-data', identify, handler),
    });
  };

  route('province', () =>
    success(
      carrierAProvinces.map((province) => ({
        ProvinceID: province.id,
        ProvinceName: province.name,
        CountryID: 1,
        Code: String(province.id),
        NameExtension: province.nameExtension,
        IsEnable: 1,
        CanUpdateCOD: false,
        Status: 1,
      })),
    ),
  );

  route('district', (_caller, request) => {
    const parsed = idOf('province_id').partial().safeParse(parameters(request));
    if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
    const provinceId = parsed.data.province_id;
    return success(
      carrierADistricts
        .filter((district) => provinceId === undefined || district.provinceId === provinceId)
        .map((district) => ({
          DistrictID: district.id,
          ProvinceID: district.provinceId,
          DistrictName: district.name,
          Code: String(district.id),
          Type: 1,
          SupportType: 3,
          NameExtension: [district.name],
          IsEnable: 1,
          CanUpdateCOD: false,
          Status: 1,
        })),
    );
  });

  route('ward', (_caller, request) => {
    const parsed = idOf('district_id').safeParse(parameters(request));
    if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
    const district = carrierADistricts.find((candidate) => candidate.id === parsed.data.district_id);
    if (!district) return failure(400, `district_id ${parsed.data.district_id} not found`, 'USER_ERR_COMMON');
    return success(
      district.wards.map((ward) => ({
        WardCode: ward.code,
        DistrictID: district.id,
        WardName: ward.name,
        NameExtension: [ward.name],
        CanUpdateCOD: false,
        SupportType: 3,
        Status: 1,
      })),
    );
  });

  // The layout since 1 July 2025: provinces and their wards, no districts (docs: "Get Province (New)", "Get Ward (New)").
  route(`${v3}/province/all`, (_caller, request) => {
    const parsed = page.safeParse(parameters(request));
    if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
    return success(
      slice(carrierANewProvinces, parsed.data).map((province) => ({
        _id: province.id,
        name: province.name,
        extension_names: province.extensionNames,
        status: 1,
      })),
    );
  });

  route(`${v3}/ward/all-by-province-id`, (_caller, request) => {
    const parsed = idOf('province_id').and(page).safeParse(parameters(request));
    if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
    const province = carrierANewProvinces.find((candidate) => candidate.id === parsed.data.province_id);
    if (!province) return failure(400, `province_id ${parsed.data.province_id} not found`, 'USER_ERR_COMMON');
    return success(
      slice(province.wards, parsed.data).map((ward) => ({
        _id: ward.id,
        name: ward.name,
        extension_names: ward.extensionNames,
        province_id: province.id,
        status: 1,
      })),
    );
  });
}
