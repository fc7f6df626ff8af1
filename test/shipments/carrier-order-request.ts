import { randomUUID } from 'node:crypto';
import type { CarrierOrderRequest } from '../../domain/shipments/index.js';

/** A shop in Hồ Chí Minh (carrier A's district 1444) as carriers take a pick-up address. */
export const pickUpAddress = {
  name: 'Shop Hoa Mai',
  phone: '0911222333',
  street: '590 CMT8',
  ward: null,
  district: 'Quận 3',
  province: 'TP. Hồ Chí Minh',
};

/** An order both simulators serve: Hà Nội (carrier A's district 1484, by name) from a shop in Hồ Chí Minh. */
export function orderRequest(overrides: Partial<CarrierOrderRequest> = {}): CarrierOrderRequest {
  return {
    shipmentId: randomUUID(),
    recipient: {
      name: 'Trần Thị B',
      phone: '0912345678',
      street: '123 Nguyễn Chí Thanh',
      ward: 'Phường Ngọc Khánh',
      district: 'Quận Ba Đình',
      province: 'Hà Nội',
    },
    pickUp: pickUpAddress,
    weightGram: 1_200,
    codAmount: '700000',
    declaredValue: '700000.000',
    note: 'Gọi trước khi giao',
    items: [
      { name: 'Áo thun', quantity: 2, price: '150000' },
      { name: 'Quần jean', quantity: 1, price: '400000' },
    ],
    ...overrides,
  };
}
