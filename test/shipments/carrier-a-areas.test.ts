import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierA } from '../../adapters/carriers/carrier-a.js';
import { CarrierError, type CarrierAdapter } from '../../adapters/carriers/carrier-adapter.js';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { useSuite } from '../support/suite.js';
import { orderRequest } from './carrier-order-request.js';
import { testCarrierOptions } from '../support/carriers.js';

/** Carrier A's create needs GHN's district id and ward code: the adapter finds them from the address's names. */
const { db } = useSuite();
let simulator: CarrierA;

beforeAll(async () => {
  simulator = await CarrierA.start();
});
afterAll(async () => {
  await simulator?.close();
});

function adapter(): CarrierAdapter {
  const shop = simulator.registerShop();
  return carrierA({ baseUrl: simulator.url, credentials: { token: shop.token, shopId: shop.shopId } }, testCarrierOptions(1_000));
}

const recipient = (province: string, district: string, ward: string | null) => ({ ...orderRequest().recipient, province, district, ward });

/** GHN's master data as an integrator reads it, with the account's token. */
async function masterData<T>(path: string, token: string): Promise<T[]> {
  const response = await fetch(`${simulator.url}/shiip/public-api/master-data/${path}`, { headers: { Token: token } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: T[] }).data;
}

/** What the carrier was asked to deliver to: its district id and ward code. */
async function deliveredTo(address: ReturnType<typeof recipient>): Promise<{ districtId: number; wardCode: string }> {
  const { trackingCode } = await adapter().create(orderRequest({ recipient: address }));
  const { request } = simulator.order(trackingCode);
  return { districtId: request.to_district_id!, wardCode: request.to_ward_code! };
}

async function rejection(address: ReturnType<typeof recipient>): Promise<CarrierError> {
  const error = await adapter()
    .create(orderRequest({ recipient: address }))
    .then(
      () => expect.fail('expected a rejection'),
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(CarrierError);
  expect((error as CarrierError).kind).toBe('rejected');
  return error as CarrierError;
}

describe('carrier A areas', () => {
  it("serves master data in GHN's shapes, whose wards are named as in our geography (the old-system units)", async () => {
    const { token } = simulator.registerShop();
    const provinces = await masterData<{ ProvinceID: number; ProvinceName: string; NameExtension: string[] }>('province', token);
    expect(provinces.map((province) => province.ProvinceName)).toEqual(['Hà Nội', 'Hồ Chí Minh', 'Đà Nẵng']);
    for (const province of provinces) {
      const districts = await masterData<{ DistrictID: number; ProvinceID: number; DistrictName: string }>(
        `district?province_id=${province.ProvinceID}`,
        token,
      );
      expect(districts.length).toBeGreaterThan(0);
      for (const district of districts) {
        expect(district.ProvinceID).toBe(province.ProvinceID);
        const wards = await masterData<{ WardCode: string; DistrictID: number; WardName: string }>(
          `ward?district_id=${district.DistrictID}`,
          token,
        );
        const ours = await db.admin<{ name: string }[]>`
          select w.name from geo_units w join geo_units d on d.id = w.parent_id join geo_units p on p.id = d.parent_id
          where w.system = 'old' and d.name = ${district.DistrictName} and p.name = ${`Thành phố ${province.ProvinceName}`}`;
        expect(ours.length).toBeGreaterThan(0);
        expect(wards.map((ward) => ward.WardName).sort()).toEqual(ours.map((ward) => ward.name).sort());
        expect(new Set(wards.map((ward) => ward.WardCode)).size).toBe(wards.length);
      }
    }
    const refused = await fetch(`${simulator.url}/shiip/public-api/master-data/province`, { headers: { Token: 'not-a-token' } });
    expect(refused.status).toBe(401);
  });

  it('finds the district id and ward code from names, whatever the type words, diacritics, case or leading zeros', async () => {
    const { token } = simulator.registerShop();
    const wardCode = async (districtId: number, name: string) =>
      (await masterData<{ WardCode: string; WardName: string }>(`ward?district_id=${districtId}`, token)).find(
        (ward) => ward.WardName === name,
      )!.WardCode;

    expect(await deliveredTo(recipient('Thành phố Hà Nội', 'Quận Ba Đình', 'Phường Ngọc Khánh'))).toEqual({
      districtId: 1484,
      wardCode: await wardCode(1484, 'Phường Ngọc Khánh'),
    });
    expect(await deliveredTo(recipient('ha noi', 'ba dinh', 'P. Ngoc Khanh'))).toEqual({
      districtId: 1484,
      wardCode: await wardCode(1484, 'Phường Ngọc Khánh'),
    });
    expect(await deliveredTo(recipient('TP. Hồ Chí Minh', 'Quận 3', 'Phường 9'))).toEqual({
      districtId: 1444,
      wardCode: await wardCode(1444, 'Phường 09'),
    });
    expect(await deliveredTo(recipient('Thành phố Đà Nẵng', 'Hải Châu', 'Phường Hải Châu I'))).toEqual({
      districtId: 1526,
      wardCode: await wardCode(1526, 'Phường Hải Châu I'),
    });
  });

  it('rejects an address it cannot place, saying which part, and creates nothing', async () => {
    const before = simulator.orders().length;
    expect((await rejection(recipient('Cà Mau', 'Huyện Năm Căn', 'Xã Hàm Rồng'))).reason).toMatch(/province "Cà Mau"/);
    expect((await rejection(recipient('Hà Nội', 'Quận Hoàn Kiếm', 'Phường Hàng Bạc'))).reason).toMatch(
      /district of Hà Nội "Quận Hoàn Kiếm"/,
    );
    expect((await rejection(recipient('Hà Nội', 'Quận Ba Đình', 'Phường Bến Nghé'))).reason).toMatch(
      /ward of Quận Ba Đình, Hà Nội "Phường Bến Nghé"/,
    );
    expect((await rejection(recipient('Hà Nội', 'Quận Ba Đình', null))).reason).toMatch(/needs the recipient's ward/);
    expect(simulator.orders()).toHaveLength(before);
  });

  it('keeps master data for a while per base URL: a push does not need it again, and a failed read is not kept', async () => {
    const fresh = await CarrierA.start();
    try {
      const shop = fresh.registerShop();
      const freshAdapter = carrierA(
        { baseUrl: fresh.url, credentials: { token: shop.token, shopId: shop.shopId } },
        testCarrierOptions(1_000),
      );
      fresh.faults.inject('master-data', { type: 'unavailable' });
      const failed = await freshAdapter.create(orderRequest()).catch((error: unknown) => error);
      expect(failed).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/503/) });
      expect(fresh.orders()).toHaveLength(0);

      await freshAdapter.create(orderRequest());
      fresh.faults.inject('master-data', { type: 'unavailable' }, 3);
      await freshAdapter.create(orderRequest());
      expect(fresh.orders()).toHaveLength(2);
      expect(fresh.faults.pending().faults['master-data']).toHaveLength(3);
    } finally {
      await fresh.close();
    }
  });
});
